"""How Telegram delivers updates to a webhook, the parts the local server needs: whose updates
must stay in order, and how many deliveries may be in flight at once."""

from __future__ import annotations

from .records import JSON


def free(busy: set[object], chat: object, _: object) -> None:
    """A done-callback: the chat may have its next delivery."""
    busy.discard(chat)


def connections(text: str) -> int:
    """setWebhook's ``max_connections``: 1–100, 40 unless given (as Telegram)."""
    return min(max(int(text), 1), 100) if text.strip().isdigit() else 40


def chat_of(update: JSON) -> object:
    """Whose updates ``update`` is in order with: its chat (a press's: its message's chat; a
    private chat's: the user's; an inline query's: its sender's); else it stands alone."""
    body = next(v for k, v in update.items() if k != "update_id")
    chat = (body.get("message") or body).get("chat")
    if isinstance(chat, dict) and "id" in chat:
        return chat["id"]
    sender = body.get("from")
    if isinstance(sender, dict) and "id" in sender:
        return sender["id"]
    return ("update", update["update_id"])
