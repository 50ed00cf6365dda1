# Makes test/ a package so `python3 -m unittest discover -s test/python -t .` imports
# test.python.* from here rather than the standard library's own `test` package.
