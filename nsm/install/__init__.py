"""Installing packages: verified trees checked out of git mirrors into $NEVE_HOME/lib,
atomically and under per-package OS file locks; the operations behind nsm's commands."""
