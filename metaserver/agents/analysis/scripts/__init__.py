"""Script-style repositories: command-line entry points, their argparse definitions and
documented sessions.
"""
