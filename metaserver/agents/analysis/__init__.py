"""Analysis stage: what the package offers (the in-environment probe), how its docs and tests
use it, its command-line scripts.
"""
