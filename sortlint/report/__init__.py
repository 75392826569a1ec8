"""Printing findings and errors: text for people, json for tools."""
