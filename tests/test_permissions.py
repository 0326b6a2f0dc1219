"""The one permission list: its integer, the invite URL and the names of what a channel lacks."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import discord
from hypothesis import given
from hypothesis import strategies as st

from bot.permissions import (
    PERMISSION_NAMES,
    PERMISSIONS_INTEGER,
    REQUIRED_PERMISSIONS,
    invite_url,
    missing_in,
    names_list,
)


def test_the_list_is_exactly_what_a_table_in_a_thread_needs() -> None:
    assert set(PERMISSION_NAMES) == {
        "view_channel",
        "send_messages",
        "send_messages_in_threads",
        "create_public_threads",
        "embed_links",
        "attach_files",
        "read_message_history",
    }
    # Discord's bit values (https://discord.com/developers/docs/topics/permissions):
    # 1<<10 view, 1<<11 send, 1<<14 embed, 1<<15 attach, 1<<16 history,
    # 1<<35 create public threads, 1<<38 send in threads.
    bits = [10, 11, 14, 15, 16, 35, 38]
    assert sum(1 << b for b in bits) == PERMISSIONS_INTEGER == 309237763072
    assert not REQUIRED_PERMISSIONS.use_external_emojis
    assert not REQUIRED_PERMISSIONS.administrator


def test_invite_url_carries_the_integer_and_both_scopes() -> None:
    url = urlparse(invite_url(1234567890))
    query = parse_qs(url.query)
    assert url.netloc == "discord.com" and url.path == "/oauth2/authorize"
    assert query["client_id"] == ["1234567890"]
    assert query["permissions"] == [str(PERMISSIONS_INTEGER)]
    assert query["scope"] == ["bot applications.commands"]


def test_missing_in_names_what_lacks_in_discord_words() -> None:
    assert missing_in(REQUIRED_PERMISSIONS) == []
    assert missing_in(discord.Permissions.all()) == []
    assert missing_in(discord.Permissions(administrator=True)) == []
    lacking = discord.Permissions(REQUIRED_PERMISSIONS.value)
    lacking.attach_files = False
    lacking.create_public_threads = False
    assert missing_in(lacking) == ["Create Public Threads", "Attach Files"]
    # In a thread the channel's Send Messages and Create Public Threads do not count.
    assert missing_in(lacking, in_thread=True) == ["Attach Files"]
    assert names_list(["A", "B", "C"]) == "**A**, **B** and **C**"


@given(st.integers(min_value=0, max_value=(1 << 50) - 1))
def test_missing_in_is_empty_exactly_when_everything_needed_is_granted(value: int) -> None:
    perms = discord.Permissions(value)
    granted = (perms.value & PERMISSIONS_INTEGER) == PERMISSIONS_INTEGER or perms.administrator
    missing = missing_in(perms)
    assert (missing == []) == granted
    assert set(missing) <= set(PERMISSION_NAMES.values())


def test_the_readme_shows_the_same_list() -> None:
    """The README's invite link and permission table come from this list."""
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    assert f"permissions={PERMISSIONS_INTEGER}" in readme
    table = readme[readme.index("| permission | why |") :]
    table = table[: table.index("\n\n")]
    rows = [line.split("|")[1].strip() for line in table.splitlines()[2:]]
    assert rows == list(PERMISSION_NAMES.values())
