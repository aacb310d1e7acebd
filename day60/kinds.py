"""Words about event kinds that the journal, the engine and the metrics all use, kept below all
three so that none of them has to import another for a name (no import reaches up from here).

The closed set of kinds and their fields are the models in ``day60.events``; this module says
what some of those kinds mean to the rules and the figures.
"""

from __future__ import annotations

INCIDENT = "incident."  # the prefix of every incident kind

# An incident's clock starts at the earlier of the supplier's detection and the partner's notice
# (charter 3.19): these two kinds start it, and an incident is unknown to the rules until one of
# them (or incident.raised, for one the exercise raises) is logged.
CLOCK_KINDS = ("incident.detected", "incident.partner-notice")

# The kinds that end an incident's clock, or would: a confirmed restore, and the vendor's closure
# of its ticket (which leaves the incident restored only after a restore).
ENDING_KINDS = ("incident.restored", "incident.ticket-closed")

# The waits on the partner and agreed change windows, as pairs of edges (start, end).
PAUSE_KINDS = ("incident.wait-start", "incident.wait-end", "incident.change-window-start",
               "incident.change-window-end")

# The first instant of each of these, per incident, is what the figures read (the engine's
# ``grouped`` table and the metrics' pandas reference both give one column per kind).
FIRST_KINDS = ("incident.raised", "incident.detected", "incident.partner-notice", "incident.restored",
               "incident.communicated", "incident.withdrawn", "incident.excluded", "incident.ticket-closed")

# How each incident stood at the window's end (events after it do not count): the kind of its
# latest restore or re-open, the instant of its latest restore, its re-opens, and its latest
# ticket closure when that came after the latest restore or re-open, and whether that closure's
# time is not evidenced (its instant a stand-in, ``instant: "not-evidenced"``).
ENDING_COLUMNS = ("end_kind", "final_restore", "reopens", "closed_at", "closed_untimed", "stand_in")

# The kinds that begin an injection (charter 4.5.1): after one, the injection can only be stopped.
INJECTIONS = ("drift.onset", "incident.raised", "rollback.criterion-met")

# Events that change an earlier event rather than add a fact: a correction of its instant, the
# reveal of a sealed onset's instant. Their effect reaches back, so they are read apart.
FIXERS = ("correction", "reveal")
