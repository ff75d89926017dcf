"""`POST /graphql` on the proxy: the provider's GraphQL control-plane operations served from v2 (issue 22).

schema.py (the SDL and documents, parsed, bounded and validated once per query text), operations.py (one resolver
per operation, from graphql.yaml), execute.py (running them on the v1 pipeline's machinery), views.py (the GraphQL
view of v2 records, exactly the selected fields), service.py (the HTTP endpoint).
"""
