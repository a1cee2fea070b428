"""One module per demo domain; each builds documents with the shared builder in ``demo.documents``."""
