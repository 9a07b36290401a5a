"""A battle as one viewer may see it: the log, the turn bar, offers and the battle as data, the
tactical map's rows, the ⚑ marks, the battle report, and what live frames keep of each watched
battle's log. Pages, frames and REST all read through here."""
