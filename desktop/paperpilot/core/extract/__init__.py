"""Text extractors that turn imported files (PDF, plain text) into cleaned pages."""
