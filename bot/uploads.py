"""Pictures uploaded once: a picture Telegram has is sent again by its file_id (a digest of its
bytes → file_id, the newest kept in memory, all in storage)."""

from __future__ import annotations

import hashlib
from typing import Protocol

FILE_IDS_KEPT = 1024  # pictures' file_ids kept in memory (storage has them all: a miss reads it)


class UploadStore(Protocol):
    """Where pictures' file_ids are kept (:class:`bot.storage.Storage`)."""

    async def get_upload(self, digest: str) -> str | None: ...

    async def save_upload(self, digest: str, file_id: str) -> None: ...


class Uploads:
    """The file_ids of pictures uploaded, by their bytes' digest; what was uploaded."""

    def __init__(self, store: UploadStore) -> None:
        self.store = store
        self._file_ids: dict[str, str] = {}  # picture digest → file_id (a cache of ``store``)
        self.uploaded_bytes = 0  # pictures uploaded (not sent by file_id): bytes, and how many
        self.uploads_sent = 0

    async def known(self, data: bytes) -> tuple[str, str | None]:
        """A picture's digest, and the file_id Telegram gave the same bytes before (if any)."""
        key = hashlib.blake2b(data, digest_size=16).hexdigest()
        known = self._file_ids.get(key)
        if known is None:
            known = await self.store.get_upload(key)
            if known is not None:
                self._remember(key, known)
        return key, known

    def refused(self, key: str) -> None:
        """Telegram no longer knows the file_id: the picture is uploaded again."""
        self._file_ids.pop(key, None)

    def uploading(self, data: bytes) -> None:
        self.uploaded_bytes += len(data)
        self.uploads_sent += 1

    async def uploaded(self, key: str, file_id: str) -> None:
        """Telegram gave the picture ``file_id``: kept (in memory and in storage)."""
        self._remember(key, file_id)
        await self.store.save_upload(key, file_id)

    def _remember(self, key: str, file_id: str) -> None:
        """Keep a file_id in memory (the newest :data:`FILE_IDS_KEPT`; storage has them all)."""
        self._file_ids.pop(key, None)
        self._file_ids[key] = file_id
        if len(self._file_ids) > FILE_IDS_KEPT:
            del self._file_ids[next(iter(self._file_ids))]
