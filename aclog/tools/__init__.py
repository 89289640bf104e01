"""The ``aclog`` command line: thin adapters that parse, call one library function, render."""
