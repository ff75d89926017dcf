"""`v1bridge audit`: inventory of what still depends on v1, in code and in proxy traffic.

The Python detector is the rewrite's (`codemod.detect`); other text files go
through `scan_text`, driven by the same catalogue (`mappings/`). Both produce
findings that `engine` puts through markers and file status before a report
renders them.
"""
