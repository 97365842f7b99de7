"""Shared code of the workflow: every rule script is a thin wrapper around functions here."""
