"""CogniVault."""
