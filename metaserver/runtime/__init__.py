"""Runtime helpers imported by every generated MCP server.

This package is copied into each generated server's directory (as ``metaserver_runtime``)
and runs in the target library's environment, so it imports only the standard library and
refers to its own modules relatively.
"""

from .call import DEFAULT_MAX_BYTES, invoke, resolve, setter, split_arguments
from .codecs import HANDLE_KEYS, cap_result, dumps_compact, from_json, json_size_ok, to_json
from .decode import CodecError, decode, set_work_dir
from .handles import DEFAULT_CAPACITY, HandleTable, safe_repr, safe_str, type_name

__all__ = [
    "DEFAULT_CAPACITY",
    "DEFAULT_MAX_BYTES",
    "HANDLE_KEYS",
    "CodecError",
    "HandleTable",
    "cap_result",
    "decode",
    "dumps_compact",
    "from_json",
    "invoke",
    "json_size_ok",
    "resolve",
    "safe_repr",
    "safe_str",
    "set_work_dir",
    "setter",
    "split_arguments",
    "to_json",
    "type_name",
]
