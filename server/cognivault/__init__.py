"""CogniVault: a 100% local study companion for Markdown vaults."""

__version__ = "0.1.0"
