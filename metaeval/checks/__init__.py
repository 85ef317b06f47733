"""Checks on a judge: bias tests, sensitivity scenarios and the design of validation samples."""
