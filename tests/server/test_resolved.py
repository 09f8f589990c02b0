"""ResolvedRecords: kept records, and every registry change seen by the next resolve."""

from __future__ import annotations

from pathlib import Path

import pytest
from fake_children import fake_record, fast_settings

from metaserver.auth.audit import AuditLog
from metaserver.exceptions import NotFoundError
from metaserver.registry.store import Registry
from metaserver.server.resolved import ResolvedRecords


def test_kept_until_the_registry_changes(tmp_path: Path) -> None:
    settings = fast_settings(tmp_path / "home")
    registry = Registry(settings.registry_path)
    resolved = ResolvedRecords(registry)
    with pytest.raises(NotFoundError):  # no registry file yet: nothing kept, nothing found
        resolved.resolve("alpha")

    first = registry.register(fake_record(settings, "alpha", version="v1")).record
    kept = resolved.resolve("alpha")
    assert kept.version_id == first.version_id
    assert resolved.resolve("alpha") is kept  # no registry read while nothing changed

    # A new version registered through another connection: the next resolve sees it.
    newer = fake_record(settings, "alpha", version="v2").model_copy(
        update={"created_at": first.created_at + 1}
    )
    registry.register(newer)
    assert resolved.resolve("alpha").version_id == "v2"
    assert resolved.resolve("alpha@v2").version_id == "v2"

    registry.remove("alpha")
    with pytest.raises(NotFoundError):
        resolved.resolve("alpha")
    with pytest.raises(NotFoundError):
        resolved.resolve("alpha@v2")
    resolved.close()


def test_kept_across_audit_rows_but_not_a_replaced_version(tmp_path: Path) -> None:
    settings = fast_settings(tmp_path / "home")
    registry = Registry(settings.registry_path)
    resolved = ResolvedRecords(registry)
    registry.register(fake_record(settings, "alpha", version="v1"))
    kept = resolved.resolve("alpha")
    # Every call writes an audit row into the registry's file: that is no registry change.
    AuditLog(registry).record("local", "alpha_add", "ok", target="alpha")
    assert resolved.resolve("alpha") is kept

    # An older version with no tools removed: no tool row and no latest change (so no
    # search generation change), yet the next resolve of it finds it gone.
    bare = fake_record(settings, "beta", version="v1").model_copy(update={"tools": []})
    registry.register(bare)
    newer = fake_record(settings, "beta", version="v2", commit="1" * 40).model_copy(
        update={"created_at": bare.created_at + 5}
    )
    registry.register(newer)
    assert resolved.resolve("beta@v1").tools == []
    registry.remove("beta", "v1")
    with pytest.raises(NotFoundError):
        resolved.resolve("beta@v1")
    resolved.close()
