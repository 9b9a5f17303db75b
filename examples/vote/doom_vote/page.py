"""The dashboard page /x/vote/: every poll with its counts, read-only.

The users' texts (questions, labels, commands) reach the HTML only as template variables, so
Jinja's autoescape escapes them.
"""

from __future__ import annotations

__all__ = ["blueprint"]

from typing import Any

from bot.api import Operations
from doom_vote.polls import Polls

PAGE = """{% extends "base.html" %}
{% block title %}{{ _("Votes") }}{% endblock %}
{% block main %}
<h1>{{ _("Votes") }}</h1>
{% if not polls %}
<p>{{ _("No polls yet: a moderator starts one with /vote start.") }}</p>
{% endif %}
{% for poll in polls %}
<section class="poll" id="poll-{{ poll.id }}">
<h2>{{ _("Poll {n}:", n=poll.id) }} {{ poll.question }}</h2>
<p>
{% if poll.open %}{{ _("Open; the winner runs:") }}{% else %}{{ _("Closed; the winner runs:") }}
{% endif %}
<code>{{ poll.when }}</code>{% if poll.server %} ({{ poll.server }}){% endif %}</p>
<table>
<thead>
<tr><th>{{ _("Choice") }}</th><th>{{ _("Command") }}</th><th>{{ _("Ballots") }}</th></tr>
</thead>
<tbody>
{% for choice in poll.choices %}
<tr{% if choice.label == poll.winner %} class="winner"{% endif %}><td>{{ choice.label }}</td>
<td><code>{{ choice.command }}</code></td><td>{{ counts[poll.id][choice.label] }}</td></tr>
{% endfor %}
</tbody>
</table>
{% if not poll.open %}
<p>{{ _("Won:") }} <strong>{{ poll.winner }}</strong>, {{ _("scheduled as") }}
<code>vote-{{ poll.id }}</code>.</p>
{% endif %}
</section>
{% endfor %}
{% endblock %}
"""


def blueprint(loaded: dict[str, Operations]) -> Any:
    """The page's Quart blueprint; `loaded["ops"]` is the bot's operations, set when the plugin
    loads (its setup), before any request."""
    from quart import Blueprint, render_template_string

    made = Blueprint("vote", __name__)

    @made.get("/")
    async def index() -> str:
        polls = await Polls(loaded["ops"]).all()
        counts = {p.id: p.counts() for p in polls}
        return await render_template_string(PAGE, polls=polls, counts=counts)

    return made
