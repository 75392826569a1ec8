"""Rewriters: turn findings into text edits that keep every output column's name and order."""
