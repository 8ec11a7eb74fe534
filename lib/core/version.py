"""The app's version, recorded in run manifests and in the schema ledger."""
__version__ = "0.1.0"
