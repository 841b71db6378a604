"""An organization's signing key (policies/keys.py): created once, whoever asks first."""

from __future__ import annotations

import json
import multiprocessing

from policies.keys import key_folder, org_key


def _thumbprint_when_released(state_dir: str, org: str, start, out) -> None:
    start.wait()
    out.put(org_key(state_dir, org).thumbprint())


def test_an_organizations_processes_starting_at_once_share_one_signing_key(tmp_path):
    """A fresh clone's chaos test started an organization's units at once: each found no key, made one and wrote it
    through the same temporary file, and one unit died of "signing.jwk.tmp: No such file or directory" — or, had
    the renames fallen the other way, would have signed with a key no other process holds."""
    context = multiprocessing.get_context("fork")
    for attempt in range(5):
        org = f"hospital_{attempt}"
        start, out = context.Barrier(6), context.Queue()
        workers = [context.Process(target=_thumbprint_when_released, args=(str(tmp_path), org, start, out))
                   for _ in range(6)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(60)
        assert [worker.exitcode for worker in workers] == [0] * 6, "every process got the key"
        thumbprints = {out.get(timeout=5) for _ in workers}
        assert thumbprints == {org_key(tmp_path, org).thumbprint()}, "one key, the one on disk"
        folder = key_folder(tmp_path, org)
        assert json.loads((folder / "jwks.json").read_text())["keys"][0]["kid"] == thumbprints.pop()
        assert sorted(p.name for p in folder.iterdir()) == ["jwks.json", "signing.jwk"], "no temporary file left"
        assert (folder / "signing.jwk").stat().st_mode & 0o777 == 0o600
