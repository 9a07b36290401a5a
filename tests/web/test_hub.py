"""The hub in isolation (fault 1): a viewer whose frame cannot be read is retried, and if it still
fails its socket is closed with a code the client reconnects on — never dropped silently; hello
re-joins; viewers who see the same thing share one read and one rendering per seq."""

from __future__ import annotations

import asyncio
import json
import random
from dataclasses import dataclass

from app.realtime.broker import Topic
from app.realtime.diff import apply
from app.realtime.hub import Hub, HubSettings, Subscriber
from tests.helpers import eventually


@dataclass
class Read:
    seq: int


class Views:
    placeholder = "@@csrf@@"

    def __init__(self) -> None:
        self.rendered = 0

    def key(self, read: Read, viewer: Subscriber) -> str:
        return "spectator"

    def html(self, read: Read, viewer: Subscriber) -> str:
        self.rendered += 1
        return f"<p>{read.seq} @@csrf@@</p>"


class Socket:
    def __init__(self) -> None:
        self.sent: list[str] = []
        self.closed: list[tuple[int, str]] = []

    async def send(self, text: str) -> None:
        self.sent.append(text)

    async def close(self, code: int, reason: str) -> None:
        self.closed.append((code, reason))


def viewer(sock: Socket, csrf: str = "t") -> Subscriber:
    return Subscriber("b", "p", sock.send, sock.close, csrf=csrf)


async def settle(hub: Hub, *others: Subscriber) -> None:
    """Wait until the hub has nothing under way — no round reading or rendering, no writer with
    frames for its socket (its viewers', and `others` queued to without joining) — then let the
    tasks they started (a socket's close) run."""

    def idle() -> bool:
        rounds = any(not task.done() for task in hub._rounds.values())
        viewers = [v for g in hub.viewers.values() for v in g] + list(others)
        writers = any(v.writer is not None and not v.writer.done() for v in viewers)
        return not rounds and not writers

    await eventually(idle, interval=0.005, what="the hub's rounds and writers to finish")
    for _ in range(10):
        await asyncio.sleep(0)


async def test_a_failing_read_is_retried_then_the_socket_closed_1013_and_hello_rejoins() -> None:
    state = {"fail": 2, "seq": 3, "reads": 0}

    async def load(battle_id: str, since: int) -> Read:
        state["reads"] += 1
        if state["fail"]:
            state["fail"] -= 1
            raise ConnectionError("database away")
        return Read(state["seq"])

    # The production backoff (0.2, 0.4, 0.8 s ± 20 %) shortened a hundredfold, its jitter seeded.
    fast = HubSettings(
        heartbeat_seconds=0, read_retries=3, retry_delay=0.002, retry_delay_max=0.02, rng=random.Random(7)
    )
    hub = Hub(load=load, views=Views(), settings=fast)
    sock = Socket()
    v = viewer(sock)
    hub.hello(v, 2)
    # two failures, backoff, then the read works
    await eventually(lambda: [s for s in sock.sent if '"seq": 3' in s], what="the frame after two failures")
    assert state["reads"] == 3 and not sock.closed
    state["fail"], state["seq"] = 99, 4
    await hub.wake("b", 4)
    await eventually(lambda: sock.closed, what="the socket closed after the last retry")
    assert state["reads"] == 3 + 1 + 3  # the first try and read_retries more, then it gave up
    assert sock.closed[0][0] == 1013  # told to reconnect, not forgotten
    assert "b" not in hub.viewers
    state["fail"] = 0
    hub.hello(v, 3)  # the same socket says hello again: back in
    await settle(hub)
    assert "b" in hub.viewers and '"seq": 4' in sock.sent[-1]


async def test_viewers_who_see_the_same_share_one_rendering() -> None:
    reads = []

    async def load(battle_id: str, since: int) -> Read:
        reads.append(since)
        return Read(5)

    views = Views()
    hub = Hub(load=load, views=views, settings=HubSettings(heartbeat_seconds=0))
    socks = [Socket() for _ in range(30)]
    for i, s in enumerate(socks):
        hub.join(v := viewer(s, csrf=f"tok{i}"))
        v.last_seq = 4
    await hub.wake("b", 5)
    await settle(hub)
    assert len(reads) == 1 and views.rendered == 1
    for i, s in enumerate(socks):  # each gets its own CSRF token in the shared rendering
        assert len(s.sent) == 1 and f"tok{i}" in s.sent[0] and "@@csrf@@" not in s.sent[0]


class RegionViews(Views):
    def __init__(self) -> None:
        super().__init__()
        self.panel = "<panel v1>"

    def html(self, read: Read, viewer: Subscriber) -> list[tuple[str, str]]:  # type: ignore[override]
        self.rendered += 1
        return [("#bar", f"<bar {read.seq}>"), ("#panel", self.panel), ("+#log", f"<log {read.seq}>")]


async def test_a_region_the_viewer_already_has_is_not_sent_again_until_hello() -> None:
    seq = {"n": 3}

    async def load(battle_id: str, since: int) -> Read:
        return Read(seq["n"])

    views = RegionViews()
    hub = Hub(load=load, views=views, settings=HubSettings(heartbeat_seconds=0))
    sock = Socket()
    v = viewer(sock)
    hub.hello(v, 2)
    await settle(hub)
    assert "<panel v1>" in sock.sent[-1] and "<bar 3>" in sock.sent[-1] and "<log 3>" in sock.sent[-1]
    seq["n"] = 4
    await hub.wake("b", 4)
    await settle(hub)
    assert "<bar 4>" in sock.sent[-1] and "<log 4>" in sock.sent[-1] and "panel" not in sock.sent[-1]
    views.panel, seq["n"] = "<panel v2>", 5
    await hub.wake("b", 5)
    await settle(hub)
    assert "<panel v2>" in sock.sent[-1]
    hub.hello(v, 5)  # the page may hold less than we think: everything again
    seq["n"] = 6
    await hub.wake("b", 6)
    await settle(hub)
    assert "<panel v2>" in sock.sent[-1] and "<bar 6>" in sock.sent[-1]


async def test_viewers_sent_the_same_hold_one_record_and_each_still_gets_what_it_lacks() -> None:
    """What a rendering adds is worked out once per rendering and per record of what
    was sent, so viewers sent the same frames share that record; one who said hello again (and so
    holds a fresh record) still gets every region, the others only what changed."""
    seq = {"n": 3}

    async def load(battle_id: str, since: int) -> Read:
        return Read(seq["n"])

    views = RegionViews()
    hub = Hub(load=load, views=views, settings=HubSettings(heartbeat_seconds=0))
    socks = [Socket() for _ in range(4)]
    viewers = [viewer(sock, csrf=f"tok{i}") for i, sock in enumerate(socks)]
    for v in viewers:
        hub.hello(v, 2)
    await settle(hub)
    assert all("<panel v1>" in s.sent[-1] for s in socks)
    assert all(v.sent is viewers[0].sent for v in viewers)  # one record for all four
    hub.hello(viewers[3], 3)  # this page may hold less than we think
    seq["n"] = 4
    await hub.wake("b", 4)
    await settle(hub)
    assert views.rendered == 2
    for sock in socks[:3]:
        assert "<bar 4>" in sock.sent[-1] and "panel" not in sock.sent[-1]
    assert "<panel v1>" in socks[3].sent[-1] and "<bar 4>" in socks[3].sent[-1]
    assert viewers[0].sent is viewers[1].sent is viewers[2].sent
    assert viewers[0].sent.regions == viewers[3].sent.regions
    views.panel, seq["n"] = "<panel v2>", 5
    await hub.wake("b", 5)
    await settle(hub)
    assert all("<panel v2>" in s.sent[-1] for s in socks)
    assert [s.sent[-1].count("<log 5>") for s in socks] == [1, 1, 1, 1]


class PausedSocket(Socket):
    """A socket whose transport is paused (a slow reader) until `resume()`: each send waits."""

    def __init__(self) -> None:
        super().__init__()
        self.writable = asyncio.Event()

    async def send(self, text: str) -> None:
        await self.writable.wait()
        self.sent.append(text)


async def test_a_frame_goes_out_in_place_and_a_paused_socket_gets_its_frames_in_order() -> None:
    """A frame for a socket that can take it as it is (`write_now`) is written in place — no writer
    task, no timer; one that cannot waits in the viewer's writer, and the frames behind it follow
    in order."""
    hub = Hub(settings=HubSettings(heartbeat_seconds=0))
    quick, slow = Socket(), PausedSocket()
    fast_viewer, slow_viewer = viewer(quick), viewer(slow)
    written: list[str] = []
    fast_viewer.write_now = lambda text: written.append(text) is None
    slow_viewer.write_now = lambda text: False  # its transport is paused
    hub.queue(fast_viewer, "one")
    assert written == ["one"] and fast_viewer.writer is None and fast_viewer.pending is None
    assert fast_viewer.sent_frames == 1 and fast_viewer.sent_bytes == 3
    for frame in ("a", "b", "c"):
        hub.queue(slow_viewer, frame)
    assert slow.sent == [] and slow_viewer.writer is not None and list(slow_viewer.pending) == ["a", "b", "c"]
    slow.writable.set()
    await settle(hub, slow_viewer)
    assert slow.sent == ["a", "b", "c"] and slow_viewer.pending is None and slow_viewer.sent_frames == 3


async def test_a_send_that_fails_or_stays_stuck_closes_the_socket_1011() -> None:
    """A send that raises at once, and one still paused after the send timeout, close their socket
    with 1011 (the client reconnects and catches up by seq); neither is kept as a viewer."""
    hub = Hub(settings=HubSettings(heartbeat_seconds=0, send_timeout=0.2))

    class Broken(Socket):
        async def send(self, text: str) -> None:
            raise OSError("connection reset")

    broken, stuck = Broken(), PausedSocket()
    gone, waiting = viewer(broken), viewer(stuck)
    for v in (gone, waiting):
        hub.join(v)
        hub.queue(v, "frame")
    await settle(hub)
    assert broken.closed == [(1011, "send failed")] and gone.closed
    assert stuck.closed == [(1011, "send failed")] and waiting.closed and stuck.sent == []
    assert "b" not in hub.viewers


async def test_the_heartbeat_goes_to_viewers_not_sent_a_frame_since_the_last_beat() -> None:
    """The heartbeat tells an idle viewer the battle's seq (and that the socket lives); a viewer
    just sent a frame with that seq has heard both, so under load the beats are not sent twice."""

    async def load(battle_id: str, since: int) -> Read:
        return Read(5)

    async def seqs(battles: list[str]) -> dict[str, int]:
        return {b: 5 for b in battles}

    every = 0.05  # the beat's interval (5 s in production), short so the test need not wait one out
    hub = Hub(load=load, views=Views(), seqs=seqs, settings=HubSettings(heartbeat_seconds=every))
    framed, idle = Socket(), Socket()
    for sock, seq in ((framed, 4), (idle, 5)):
        hub.join(v := viewer(sock))
        v.last_seq = seq
    await hub.wake("b", 5)
    await settle(hub)
    assert len(framed.sent) == 1 and '"seq": 5' in framed.sent[0] and idle.sent == []
    await hub.beat()
    await settle(hub)
    assert len(framed.sent) == 1  # framed within the beat: no heartbeat
    assert [json.loads(s) for s in idle.sent] == [{"type": "heartbeat", "seq": 5, "every": every}]
    loop = asyncio.get_running_loop()
    framed_at = max(v.framed_at for group in hub.viewers.values() for v in group)
    await eventually(lambda: loop.time() - framed_at > every, what="a beat's interval since the frame")
    await hub.beat()  # a beat later, nothing new: both are told
    await settle(hub)
    assert json.loads(framed.sent[-1])["type"] == "heartbeat" and len(idle.sent) == 2


async def test_a_frame_the_socket_takes_at_once_is_written_there_else_sent() -> None:
    """The shared-bytes path (CPU per action): `write_now` takes the frame when the socket
    can; when it cannot (False) the frame goes by `send_text`; when it raises, the socket is closed
    1011 as after any failed send."""
    hub = Hub(load=lambda b, s: _read(s), views=Views(), settings=HubSettings(heartbeat_seconds=0))
    takes = {"now": True}
    direct: list[str] = []

    def write_now(text: str) -> bool:
        if takes["now"] is None:
            raise ConnectionResetError("gone")
        if takes["now"]:
            direct.append(text)
        return bool(takes["now"])

    sock = Socket()
    v = Subscriber("b", "p", sock.send, sock.close, csrf="t", write_now=write_now)
    hub.hello(v, 0)
    await settle(hub)
    assert [json.loads(f)["seq"] for f in direct] == [1] and sock.sent == []
    assert v.sent_frames == 1 and v.sent_bytes == len(direct[0])
    takes["now"] = False  # e.g. its buffer is full: the usual send, in order
    await hub.wake("b", 2)
    await settle(hub)
    assert [json.loads(f)["seq"] for f in sock.sent] == [2] and len(direct) == 1
    takes["now"] = None
    await hub.wake("b", 3)
    await settle(hub)
    assert sock.closed and sock.closed[0][0] == 1011 and "b" not in hub.viewers


async def _read(seq: int) -> Read:
    return Read(seq + 1)


class CardViews(Views):
    """A page of one big region (a ship card of 100 boxes) and a log."""

    placeholder = "@@csrf@@"

    def __init__(self) -> None:
        super().__init__()
        self.hit = 0

    def html(self, read: Read, viewer: Subscriber) -> list[tuple[str, str]]:  # type: ignore[override]
        boxes = "".join(f'<i class="{"hit" if i < self.hit else "box"}"></i>' for i in range(100))
        card = f'<hx-partial hx-target="#card"><form><input value="@@csrf@@">{boxes}</form></hx-partial>'
        return [("#card", card), ("+#log", f"<log {read.seq}>")]


async def test_a_region_the_page_holds_goes_as_hunks_and_a_page_that_lost_its_copy_gets_it_whole() -> None:
    """Send what changed inside a region: a page holding the card is sent only the hunk for the
    box that changed (with its own token where the placeholder was), and rebuilds the card; a
    token of another length than the placeholder gets the card whole; a hello asking for every
    region (`whole`: the page's copy did not fit the hunks) gets them at the seq it holds."""
    seq = {"n": 3}

    async def load(battle_id: str, since: int) -> Read:
        return Read(seq["n"])

    views = CardViews()
    hub = Hub(load=load, views=views, settings=HubSettings(heartbeat_seconds=0))
    page, odd = Socket(), Socket()
    v, w = viewer(page, csrf="12345678"), viewer(odd, csrf="short")
    hub.hello(v, 2)
    hub.hello(w, 2)
    await settle(hub)
    first = json.loads(page.sent[-1])
    assert "patch" not in first and first["content"].count('class="box"') == 100
    views.hit, seq["n"] = 1, 4
    await hub.wake("b", 4)
    await settle(hub)
    frame = json.loads(page.sent[-1])
    assert frame["content"] == "<log 4>" and frame["seq"] == 4
    [(target, length, ops)] = frame["patch"]
    assert target == "#card" and len(ops) == 1 and len(page.sent[-1]) < 120
    card = first["content"][: first["content"].index("<log")]
    rebuilt = apply(card, length, ops)
    assert rebuilt is not None and rebuilt.count('class="hit"') == 1 and 'value="12345678"' in rebuilt
    whole = json.loads(odd.sent[-1])
    assert (
        "patch" not in whole and 'value="short"' in whole["content"] and whole["content"].count('"hit"') == 1
    )
    hub.hello(v, 4, whole=True)
    await settle(hub)
    again = json.loads(page.sent[-1])
    assert again["refresh"] and again["seq"] == 4 and "<log" not in again["content"]
    assert again["content"] == rebuilt


async def test_the_table_talk_is_read_once_a_seat_retried_when_it_fails_and_never_left_silent() -> None:
    """One live path: a table wake-up (`Topic.TABLE`) reads the battle's table once for all its
    watching seats and sockets and sends each what changed (nothing when nothing did); a read that
    fails is tried again, and a table that still cannot be read has its sockets closed 1013 (the
    page reconnects and reads it on hello) instead of keeping sockets that silently miss talk."""
    reads: list[list[str]] = []
    talk = {"line": "hi", "fail": 2}

    async def table(battle_id: str, seats: list[str]) -> dict[str, list[tuple[str, str]] | None]:
        reads.append(seats)
        if talk["fail"]:
            talk["fail"] -= 1
            raise ConnectionError("database busy")
        return {
            s: [("#chat-list", f'<hx-partial hx-target="#chat-list">{talk["line"]}</hx-partial>')]
            for s in seats
        }

    fast = HubSettings(heartbeat_seconds=0, read_retries=3, retry_delay=0.002, retry_delay_max=0.01)
    hub = Hub(load=lambda b, s: _read(s), views=Views(), settings=fast, table=table)
    socks = [Socket(), Socket()]
    tabs = [viewer(sock) for sock in socks]  # one seat, two tabs
    for v in tabs:
        hub.join(v)
    await hub.wake("b", 0, Topic.TABLE)
    await settle(hub)
    await eventually(lambda: all(s.sent for s in socks), what="the table frame on both tabs")
    assert reads == [["p"], ["p"], ["p"]]  # two failures, then one read for both tabs
    assert all(
        json.loads(s.sent[-1])
        == {"content": '<hx-partial hx-target="#chat-list">hi</hx-partial>', "table": True}
        for s in socks
    )
    await hub.wake("b", 0, Topic.TABLE)  # nothing changed for this seat: nothing sent
    await settle(hub)
    assert [len(s.sent) for s in socks] == [1, 1] and len(reads) == 4
    talk["fail"] = 10
    await hub.wake("b", 0, Topic.TABLE)
    await eventually(lambda: all(s.closed for s in socks), what="both tabs closed")
    assert all(s.closed == [(1013, "the table could not be read; reconnecting")] for s in socks)


async def test_a_tables_seats_share_one_read_and_each_gets_only_its_own_regions() -> None:
    """Several seats watching one battle: a table wake-up reads once for all of them, and each
    seat's sockets get that seat's regions only; a seat the read finds unseated gets nothing."""
    reads: list[list[str]] = []

    async def table(battle_id: str, seats: list[str]) -> dict[str, list[tuple[str, str]] | None]:
        reads.append(sorted(seats))
        drawn = {
            s: [("#chat-list", f'<hx-partial hx-target="#chat-list">for {s}</hx-partial>')] for s in seats
        }
        return drawn | {"gone": None}

    hub = Hub(
        load=lambda b, s: _read(s), views=Views(), settings=HubSettings(heartbeat_seconds=0), table=table
    )
    socks = {seat: Socket() for seat in ("p", "q", "gone")}
    for seat, sock in socks.items():
        hub.join(Subscriber("b", seat, sock.send, sock.close, csrf="t"))
    await hub.wake("b", 0, Topic.TABLE)
    await settle(hub)
    await eventually(lambda: socks["p"].sent and socks["q"].sent, what="each seat's table frame")
    assert reads == [["gone", "p", "q"]]
    for seat in ("p", "q"):
        assert [json.loads(f)["content"] for f in socks[seat].sent] == [
            f'<hx-partial hx-target="#chat-list">for {seat}</hx-partial>'
        ]
    assert socks["gone"].sent == [] and socks["gone"].closed == []


async def test_a_seats_wake_up_is_counted_even_with_nobody_watching() -> None:
    """The seats a process keeps for a battle's frames are kept by the hub's count of seat
    changes (`refreshes`): a change heard while nobody watched must still move it, or a viewer
    arriving within the seats' 30 s would be drawn from seats as they were."""
    hub = Hub(load=lambda b, s: _read(s), views=Views(), settings=HubSettings(heartbeat_seconds=0))
    await hub.wake("b", 0, Topic.SEATS)
    assert hub.refreshes == {"b": 1} and "b" not in hub.viewers


async def test_after_the_broker_comes_back_the_table_talk_is_caught_up_too() -> None:
    """Table wake-ups lost while the broker was away are made up when it resubscribes: each
    watching seat's table is read again and sent what changed (here: a line it lacks)."""
    talk = {"line": "one"}

    async def table(battle_id: str, seats: list[str]) -> dict[str, list[tuple[str, str]] | None]:
        return {
            s: [("#chat-list", f'<hx-partial hx-target="#chat-list">{talk["line"]}</hx-partial>')]
            for s in seats
        }

    hub = Hub(
        load=lambda b, s: _read(s), views=Views(), settings=HubSettings(heartbeat_seconds=0), table=table
    )
    sock = Socket()
    v = viewer(sock)
    hub.join(v)
    await hub.send_table([v])
    await settle(hub)
    talk["line"] = "two"  # posted while this process was deaf to the broker
    await hub.resync_all()
    await settle(hub)
    await eventually(lambda: any("two" in s for s in sock.sent), what="the missed line")


async def test_table_talk_per_seat_leaves_the_seats_sharing_one_record_of_the_battle() -> None:
    """The table is drawn per seat (a private line is one seat's), the battle's regions per view:
    after a table round has given each spectator's seat its own lines, the spectators, each on a
    seat of their own, still share one record of the battle's regions — one frame worked out for
    all of them each action, not one a seat."""
    seq = {"n": 3}

    async def load(battle_id: str, since: int) -> Read:
        return Read(seq["n"])

    async def table(battle_id: str, seats: list[str]) -> dict[str, list[tuple[str, str]] | None]:
        return {
            s: [("#chat-list", f'<hx-partial hx-target="#chat-list">for {s}</hx-partial>')] for s in seats
        }

    views = RegionViews()
    hub = Hub(load=load, views=views, settings=HubSettings(heartbeat_seconds=0), table=table)
    socks = [Socket() for _ in range(3)]
    viewers = [Subscriber("b", f"seat{i}", s.send, s.close, csrf="t") for i, s in enumerate(socks)]
    for v in viewers:
        hub.hello(v, 2)
    await settle(hub)
    await hub.send_table(viewers)  # each seat its own line
    await settle(hub)
    assert [json.loads(s.sent[-1])["content"] for s in socks] == [
        f'<hx-partial hx-target="#chat-list">for seat{i}</hx-partial>' for i in range(3)
    ]
    assert len({id(v.table_sent) for v in viewers}) == 3  # the table: a record a seat
    seq["n"] = 4
    await hub.wake("b", 4)
    await settle(hub)
    assert viewers[0].sent is viewers[1].sent is viewers[2].sent  # the battle: one record for all
    assert all("<bar 4>" in s.sent[-1] and "panel" not in s.sent[-1] for s in socks)
    await hub.send_table(viewers)  # the same lines again: nothing new for anyone
    await settle(hub)
    assert all("<bar 4>" in s.sent[-1] for s in socks)
