"""Who may do what on a shared meta-server, and a record of who did.

- :mod:`~metaserver.auth.roles`: principals, the three roles and the server globs;
- :mod:`~metaserver.auth.tables`: the tables this package keeps in the registry's file;
- :mod:`~metaserver.auth.tokens`: tokens per person or service, stored hashed;
- :mod:`~metaserver.auth.oauth`: JWT access tokens of an OAuth 2.1 issuer, checked offline;
- :mod:`~metaserver.auth.verifier`: the bearer-token verifier FastMCP calls on each request;
- :mod:`~metaserver.auth.context`: the principal of the request being served;
- :mod:`~metaserver.auth.guard`: roles, globs and audit around every tool call;
- :mod:`~metaserver.auth.audit`: the audit log;
- :mod:`~metaserver.auth.quotas` and :mod:`~metaserver.auth.http_quota`: quotas;
- :mod:`~metaserver.auth.commands`: ``metaserver token`` and ``metaserver audit``.
"""
