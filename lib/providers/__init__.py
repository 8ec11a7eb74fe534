"""Answering models behind one interface (base.Provider) and a registry."""
