"""`nsm lsp`: the Neve language server (stdio, on pygls), built on the compiler's own front end."""
