"""Helpers the catalog's step scripts share.

The compiler ships this package beside an embedded script that imports it
(catalog.Bundle), in the job's code directory, so ``from steplib import
splits`` works wherever the script runs. Nothing here reads a container path
or an environment variable: those stay in the scripts, where their contracts
name them.
"""
