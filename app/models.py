"""Tables: battles, participants, the append-only action log, and the snapshot (a cache of the
log)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import DateTime, Float, ForeignKey, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.db import Base, json_column_type, ordered_json_type


def now() -> datetime:
    return datetime.now(UTC)


class Battle(Base):
    __tablename__ = "battles"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(120))
    system: Mapped[str] = mapped_column(String(20))
    status: Mapped[str] = mapped_column(String(20), default="active")  # active | finished
    dice_mode: Mapped[str] = mapped_column(String(20), default="seeded")  # seeded | physical
    seq: Mapped[int] = mapped_column(Integer, default=0)
    turn: Mapped[int] = mapped_column(Integer, default=1)
    step: Mapped[str] = mapped_column(String(40), default="")
    seed: Mapped[str] = mapped_column(String(128))  # secret until the battle ends
    seed_hash: Mapped[str] = mapped_column(String(64))
    options: Mapped[dict[str, Any]] = mapped_column(json_column_type(), default=dict)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now, onupdate=now)
    version: Mapped[int] = mapped_column(Integer, nullable=False, default=1)

    __mapper_args__ = {"version_id_col": version}

    participants: Mapped[list[Participant]] = relationship(
        back_populates="battle", order_by="Participant.created_at"
    )


class Participant(Base):
    __tablename__ = "participants"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    battle_id: Mapped[str] = mapped_column(ForeignKey("battles.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(80))
    role: Mapped[str] = mapped_column(String(20))  # referee | player | spectator | bot
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    active: Mapped[bool] = mapped_column(default=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)

    battle: Mapped[Battle] = relationship(back_populates="participants")


class ActionLog(Base):
    """One row per applied action; never updated, never deleted (rewinds are actions too)."""

    __tablename__ = "action_log"
    __table_args__ = (UniqueConstraint("battle_id", "seq"), UniqueConstraint("battle_id", "action_id"))

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    battle_id: Mapped[str] = mapped_column(ForeignKey("battles.id", ondelete="CASCADE"), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    action_id: Mapped[str] = mapped_column(String(64))
    actor_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    actor_role: Mapped[str] = mapped_column(String(20))
    action_type: Mapped[str] = mapped_column(String(60))
    clock: Mapped[str] = mapped_column(
        String(60), default="", server_default=""
    )  # when it was made, e.g. "T4 I17"
    payload: Mapped[dict[str, Any]] = mapped_column(ordered_json_type())
    dice: Mapped[list[Any]] = mapped_column(ordered_json_type())
    events: Mapped[list[Any]] = mapped_column(ordered_json_type())
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    # The request that made it (X-Request-ID or made by the server): leads to its log lines.
    request_id: Mapped[str | None] = mapped_column(String(64), nullable=True, default=None)


class Snapshot(Base):
    """The state after the last action: a cache that `rebuild` can always recompute from the log."""

    __tablename__ = "snapshots"

    battle_id: Mapped[str] = mapped_column(ForeignKey("battles.id", ondelete="CASCADE"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer)
    state: Mapped[dict[str, Any]] = mapped_column(ordered_json_type())


# --- At the table: chat, seats' notification settings and catch-up, requests -------------


class ChatMessage(Base):
    """Table talk: kept beside the rules log, never in it, so chat changes neither the state nor the
    actions' seq. `seq` is the battle's own chat counter. A message with a recipient is private
    between its two ends (a player and the referee)."""

    __tablename__ = "chat_messages"
    __table_args__ = (UniqueConstraint("battle_id", "seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    battle_id: Mapped[str] = mapped_column(ForeignKey("battles.id", ondelete="CASCADE"), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    sender_id: Mapped[str] = mapped_column(String(32))
    recipient_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    body: Mapped[str] = mapped_column(String(2000))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class SeatStatus(Base):
    """Per participant: the webhook they opted into (a secret: only its owner reads it), when they
    were last seen on the page, the last seq they looked at or acted on (catch-up), and whether the
    battle waited on them at the last committed action (so a notification goes once per wait)."""

    __tablename__ = "seat_status"

    participant_id: Mapped[str] = mapped_column(
        ForeignKey("participants.id", ondelete="CASCADE"), primary_key=True
    )
    battle_id: Mapped[str] = mapped_column(ForeignKey("battles.id", ondelete="CASCADE"), index=True)
    webhook_url: Mapped[str | None] = mapped_column(String(500), nullable=True)
    last_seen_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    seen_seq: Mapped[int | None] = mapped_column(Integer, nullable=True)
    awaited: Mapped[bool] = mapped_column(default=False)


class TableSettings(Base):
    """The table's options a referee may change during play (chat for spectators, damage approval,
    a step deadline), and the step whose deadline was already reported."""

    __tablename__ = "table_settings"

    battle_id: Mapped[str] = mapped_column(ForeignKey("battles.id", ondelete="CASCADE"), primary_key=True)
    options: Mapped[dict[str, Any]] = mapped_column(json_column_type(), default=dict)
    deadline_reported_seq: Mapped[int | None] = mapped_column(Integer, nullable=True)


class TableRequest(Base):
    """A player's request to the referee: undo their own last action, or damage waiting for approval."""

    __tablename__ = "table_requests"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    battle_id: Mapped[str] = mapped_column(ForeignKey("battles.id", ondelete="CASCADE"), index=True)
    participant_id: Mapped[str] = mapped_column(String(32))
    kind: Mapped[str] = mapped_column(String(20))  # undo | damage | seat (a lobby claim)
    target_seq: Mapped[int | None] = mapped_column(Integer, nullable=True)
    payload: Mapped[dict[str, Any] | None] = mapped_column(ordered_json_type(), nullable=True)
    reason: Mapped[str] = mapped_column(String(300), default="")
    status: Mapped[str] = mapped_column(String(20), default="pending")  # pending | approved | refused
    answer: Mapped[str | None] = mapped_column(String(300), nullable=True)
    result_seq: Mapped[int | None] = mapped_column(Integer, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    decided_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class Checkpoint(Base):
    """The state right after action `seq`, kept every CHECKPOINT_EVERY actions so the state at any
    seq replays fewer than that many actions. Like the snapshot, a cache of the log: written once,
    never updated (the log is append-only, so the state after an action never changes)."""

    __tablename__ = "checkpoints"

    battle_id: Mapped[str] = mapped_column(ForeignKey("battles.id", ondelete="CASCADE"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    state: Mapped[dict[str, Any]] = mapped_column(ordered_json_type())
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class Draft(Base):
    """A participant's saved draft of an action (Traveller orders written before the commit): kept
    apart from the append-only log, so saving one changes no seq, no ETag and wakes nobody else;
    the author's next action folds it into the log (its payload keeps it, so replay agrees)."""

    __tablename__ = "drafts"

    battle_id: Mapped[str] = mapped_column(ForeignKey("battles.id", ondelete="CASCADE"), primary_key=True)
    action_type: Mapped[str] = mapped_column(String(60), primary_key=True)
    ship_id: Mapped[str] = mapped_column(String(60), primary_key=True)
    participant_id: Mapped[str] = mapped_column(String(32))
    payload: Mapped[dict[str, Any]] = mapped_column(json_column_type())
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now, onupdate=now)


class LibraryShip(Base):
    """A ship definition a referee saved into the server's library: from JSON, or from a
    ship in a battle as built or as it is now. Kept apart from every battle (no foreign key), so a
    saved ship outlives the battle it came from; the sample ships stay files (app/shipdata/library).
    `held_for` names the battle a ship was saved from while that battle was under way: until it
    ends only its referees see the entry, as its parts may hold what players may not see."""

    __tablename__ = "ship_library"

    slug: Mapped[str] = mapped_column(String(60), primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    system: Mapped[str] = mapped_column(String(20), index=True)  # the ship's rule family (sfb, b5wars…)
    definition: Mapped[dict[str, Any]] = mapped_column(ordered_json_type())
    source: Mapped[str] = mapped_column(String(20))  # json | built | now
    saved_in: Mapped[str] = mapped_column(String(32), index=True)  # the battle whose referee saved it
    saved_by: Mapped[str] = mapped_column(String(32))  # that referee's participant id
    saved_by_name: Mapped[str] = mapped_column(String(80))
    from_ship: Mapped[str | None] = mapped_column(String(60), nullable=True)
    held_for: Mapped[str | None] = mapped_column(String(32), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class ReportShare(Base):
    """A public link to a battle's report, made by its referee: only the token's SHA-256 is kept
    (the link is shown once, as join links are). Whoever holds the link reads the spectator's report
    and its image card; deleting the row (the referee's Revoke) ends the link at once."""

    __tablename__ = "report_shares"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    battle_id: Mapped[str] = mapped_column(ForeignKey("battles.id", ondelete="CASCADE"), index=True)
    created_by: Mapped[str] = mapped_column(String(32))  # the referee's participant id
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


# --- Profiles: an identity that follows the player (app/services/identity) ----------------------


class Profile(Base):
    """A player's identity across devices: a display name, protected by passkeys and recovery codes.
    It grants nothing of its own: it remembers seats (ProfileSeat), and seats stay the permission.
    `settings` holds the profile's own preferences (notification settings hang here)."""

    __tablename__ = "profiles"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    user_handle: Mapped[str] = mapped_column(String(64), unique=True)  # WebAuthn user.id, base64url
    settings: Mapped[dict[str, Any]] = mapped_column(json_column_type(), default=dict)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class Passkey(Base):
    """One device's WebAuthn credential for a profile (the devices list)."""

    __tablename__ = "profile_passkeys"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    profile_id: Mapped[str] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"), index=True)
    credential_id: Mapped[str] = mapped_column(String(1400), unique=True)  # base64url
    public_key: Mapped[str] = mapped_column(String(2000))  # COSE key, base64url
    sign_count: Mapped[int] = mapped_column(Integer, default=0)
    label: Mapped[str] = mapped_column(String(80))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    last_used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class RecoveryCode(Base):
    """A printable code shown once; only its SHA-256 is kept, and it signs in once."""

    __tablename__ = "profile_recovery_codes"

    code_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    profile_id: Mapped[str] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"), index=True)
    used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class ProfileSeat(Base):
    """A seat a profile remembers, with the key of the token it was claimed with: a new link for the
    seat (rotation) gives a new key, and the memory no longer grants anything."""

    __tablename__ = "profile_seats"

    profile_id: Mapped[str] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"), primary_key=True)
    participant_id: Mapped[str] = mapped_column(
        ForeignKey("participants.id", ondelete="CASCADE"), primary_key=True
    )
    battle_id: Mapped[str] = mapped_column(ForeignKey("battles.id", ondelete="CASCADE"), index=True)
    seat_key: Mapped[str] = mapped_column(String(16))
    claimed_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class IdentityChallenge(Base):
    """A WebAuthn ceremony under way: its challenge, used once (deleted when answered) or expired."""

    __tablename__ = "identity_challenges"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    purpose: Mapped[str] = mapped_column(String(20))  # register | signin
    challenge: Mapped[str] = mapped_column(String(128))  # base64url
    profile_id: Mapped[str | None] = mapped_column(String(32), nullable=True)  # adding a device
    user_handle: Mapped[str | None] = mapped_column(String(64), nullable=True)
    name: Mapped[str | None] = mapped_column(String(80), nullable=True)  # a new profile's name
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


# --- Campaigns: fleets that outlive a battle (app/services/campaigns) ---------------------------


class Campaign(Base):
    """A referee's campaign in one game system. Its sides, players, fleets and battles are its log
    (`CampaignEvent`); `seq` is the log's last number, `options` its set-up (secret rosters, pain
    that carries)."""

    __tablename__ = "campaigns"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(120))
    system: Mapped[str] = mapped_column(String(20))
    options: Mapped[dict[str, Any]] = mapped_column(json_column_type(), default=dict)
    seq: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class CampaignSeat(Base):
    """Who may read or change a campaign: the referee, or a player by name on a side, each holding
    a token (only its hash is kept). `profile_id` links a seat to a player's profile when they
    claim it (nullable: a seat works without one)."""

    __tablename__ = "campaign_seats"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    campaign_id: Mapped[str] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(80))
    role: Mapped[str] = mapped_column(String(20))  # referee | player
    side: Mapped[str] = mapped_column(String(40), default="")
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    # the profile that claimed the seat; no foreign key, so the campaign tables migrate on their own
    profile_id: Mapped[str | None] = mapped_column(String(32), nullable=True, index=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class CampaignEvent(Base):
    """One change to a campaign; never updated, never deleted (a rewind is an event too). The
    fleets are rebuilt from these (`services.campaigns.fold`). `battle_id` links a battle started
    from the campaign, or whose end the event records."""

    __tablename__ = "campaign_events"
    __table_args__ = (UniqueConstraint("campaign_id", "seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    campaign_id: Mapped[str] = mapped_column(ForeignKey("campaigns.id", ondelete="CASCADE"), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(40))
    actor: Mapped[str] = mapped_column(String(80), default="")  # who made it, in words
    battle_id: Mapped[str | None] = mapped_column(
        ForeignKey("battles.id", ondelete="SET NULL"), nullable=True, index=True
    )
    data: Mapped[dict[str, Any]] = mapped_column(ordered_json_type())
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


# --- Clocks and pings -------------------------------------------------------------------


class BattleClock(Base):
    """A battle's running clock, kept by the clocks service (services/table/clocks.py) from the
    moments actions were committed: when each seat's wait began, what is left in each chess bank,
    which reminders went out. The settings, pauses and time-outs are actions in the log; this row
    only times them. `due_at` is the next moment the timer must look (a deadline or a reminder),
    indexed so every process's timer finds due battles in one query; `version` decides which
    process's update of the row wins."""

    __tablename__ = "battle_clocks"

    battle_id: Mapped[str] = mapped_column(ForeignKey("battles.id", ondelete="CASCADE"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, default=0)  # the last commit folded in
    run: Mapped[dict[str, Any]] = mapped_column(json_column_type(), default=dict)
    due_at: Mapped[float | None] = mapped_column(Float, nullable=True, index=True)
    version: Mapped[int] = mapped_column(Integer, default=1)


class PingSettings(Base):
    """Which pings a seat wants ("your move", "deadline soon") and by which way (the browser's
    notifications, the seat's webhook). One small row with no tie to anything but its owner, so it
    can move to a player's profile as it stands."""

    __tablename__ = "ping_settings"

    participant_id: Mapped[str] = mapped_column(
        ForeignKey("participants.id", ondelete="CASCADE"), primary_key=True
    )
    your_move: Mapped[bool] = mapped_column(default=True)
    deadline: Mapped[bool] = mapped_column(default=True)
    browser: Mapped[bool] = mapped_column(default=True)
    webhook: Mapped[bool] = mapped_column(default=True)


class LobbyListing(Base):
    """A battle its referee lists in the lobby (app/services/table/lobby.py): which player seats
    are open and how a claim is granted (`claims`: closed | approve | first), whether anyone may
    watch by the public link, and how far the audience's viewscreen runs behind the battle."""

    __tablename__ = "lobby_listings"

    battle_id: Mapped[str] = mapped_column(ForeignKey("battles.id", ondelete="CASCADE"), primary_key=True)
    claims: Mapped[str] = mapped_column(String(10), default="closed")  # closed | approve | first
    open_seats: Mapped[list[Any]] = mapped_column(ordered_json_type(), default=list)  # participant ids
    spectators: Mapped[bool] = mapped_column(default=False, index=True)
    delay_actions: Mapped[int] = mapped_column(Integer, default=0)  # the screen shows seq − N
    delay_turn: Mapped[bool] = mapped_column(default=False)  # the screen shows the previous turn's end
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now, onupdate=now)


# --- Leagues: a season's standings between profiles (app/services/leagues) ----------------------


class League(Base):
    """A season between profiles in one game system, made by its organiser. A private league's
    standings are seen by its members only; `invite` is the code that lets a profile join it (the
    organiser reads it on the league page). `points` is the league's points table: a ship's value by
    its class (`klass`) or name, for the fleet points shown at a battle's set-up."""

    __tablename__ = "leagues"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    system: Mapped[str] = mapped_column(String(20))
    organiser_id: Mapped[str] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"), index=True)
    public: Mapped[bool] = mapped_column(default=True)
    invite: Mapped[str] = mapped_column(String(32))
    points: Mapped[dict[str, Any]] = mapped_column(json_column_type(), default=dict)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class LeagueMember(Base):
    """A profile playing in a league: only members' results are rated."""

    __tablename__ = "league_members"

    league_id: Mapped[str] = mapped_column(ForeignKey("leagues.id", ondelete="CASCADE"), primary_key=True)
    profile_id: Mapped[str] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"), primary_key=True)
    joined_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class LeagueBattle(Base):
    """A battle its referee marked rated for a league, before play began. When it ends it is rated
    once (`number`: its place in the league's order, `rated_at`) or passed over with the reason in
    `note` (no winner named, a side without league players). `points`: ship points the referee gave
    for ships the league's table does not price, by ship id."""

    __tablename__ = "league_battles"

    battle_id: Mapped[str] = mapped_column(ForeignKey("battles.id", ondelete="CASCADE"), primary_key=True)
    league_id: Mapped[str] = mapped_column(ForeignKey("leagues.id", ondelete="CASCADE"), index=True)
    marked_by: Mapped[str] = mapped_column(String(32))  # the referee's participant id
    points: Mapped[dict[str, Any]] = mapped_column(json_column_type(), default=dict)
    number: Mapped[int | None] = mapped_column(Integer, nullable=True)
    rated_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    note: Mapped[str] = mapped_column(String(200), default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class RatingChange(Base):
    """One player's rating change from one rated battle: append-only, never updated. Replayed in
    `number` order from the default rating they give the standings again (an audit), and each
    names the battle it came from (its report and dice check)."""

    __tablename__ = "league_rating_changes"
    __table_args__ = (UniqueConstraint("league_id", "battle_id", "profile_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    league_id: Mapped[str] = mapped_column(ForeignKey("leagues.id", ondelete="CASCADE"), index=True)
    battle_id: Mapped[str] = mapped_column(String(32))  # no foreign key: the record outlives the battle
    battle_name: Mapped[str] = mapped_column(String(120))
    number: Mapped[int] = mapped_column(Integer)  # the battle's place in the league's order
    profile_id: Mapped[str] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"), index=True)
    side: Mapped[str] = mapped_column(String(60))
    rank: Mapped[int] = mapped_column(Integer)  # 1 the winners, 2 the others; every side 1 in a draw
    result: Mapped[str] = mapped_column(String(10))  # win | draw | loss
    mu_before: Mapped[float] = mapped_column(Float)
    sigma_before: Mapped[float] = mapped_column(Float)
    mu_after: Mapped[float] = mapped_column(Float)
    sigma_after: Mapped[float] = mapped_column(Float)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
