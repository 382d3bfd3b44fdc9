"""`nsm fmt`: the one layout of Neve source files (layout.py), checked to keep every file's
syntax tree (command.py)."""
