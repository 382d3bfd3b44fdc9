"""Golden programs: Neve programs that carry their expected behaviour in directive comments.

One grammar for the repository's golden suite (tests/programs_runner.py) and for `nsm test`
(nsm/testing.py): `grammar` reads the directives, `compare` checks a run against them, `update`
rewrites `# expect:` lines from actual output. Users' reference: docs/testing.md.
"""
from .compare import (RunResult, check, compare_compile_errors, compare_runtime_error,
                      compare_stdout, first_difference, report, split_output)
from .grammar import (DIRECTIVES, CompileErrorExpect, DirectiveError, ExpectLine, Program,
                      RuntimeErrorExpect, TraceFrame, parse_program, source_lines, split_comment)
from .update import update_expectations

__all__ = [
    "DIRECTIVES", "CompileErrorExpect", "DirectiveError", "ExpectLine", "Program", "RunResult",
    "RuntimeErrorExpect", "TraceFrame", "check", "compare_compile_errors", "compare_runtime_error",
    "compare_stdout", "first_difference", "parse_program", "report", "source_lines",
    "split_comment", "split_output", "update_expectations",
]
