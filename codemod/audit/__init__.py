"""`v1bridge audit`: inventory of what still depends on v1, in code and in proxy traffic.

Python is read by the rewrite's analysis (`codemod.analysis`, `codemod.engine`); other text files go
through `scan_text`, driven by the same catalogue (`mappings/`). Both produce
findings that `engine` puts through markers and file status before a report
renders them.
"""
