"""The Neve compiler: .nv source -> tokens -> AST -> typed IR -> LLVM IR -> native code."""
__version__ = "0.1.0"
