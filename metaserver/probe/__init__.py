"""The analysis probe: runs inside the target environment, standard library only."""
