"""Design stage: which callables become tools, their names, descriptions and example arguments."""
