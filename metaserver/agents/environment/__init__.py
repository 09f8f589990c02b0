"""Environment stage: an isolated uv environment the repository's code imports from."""
