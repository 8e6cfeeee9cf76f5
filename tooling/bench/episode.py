"""A realistic /add body: a 10-message conversation with facts, preferences and dates worth remembering."""

from __future__ import annotations

import json

CONVERSATION = (
    ("user", "Hi! I'm planning a trip to Lisbon with my partner Ana at the end of May, probably for a week."),
    ("assistant", "Lisbon in late May is lovely: warm, not too crowded yet. Is it your first visit?"),
    (
        "user",
        "Second time for me, first for Ana. Last time I stayed in Alfama and loved the fado bars there.",
    ),
    ("assistant", "Then Alfama again, or Príncipe Real for something quieter with good restaurants?"),
    ("user", "Quieter sounds good. Ana is vegetarian and I can't eat shellfish, so we need places for both."),
    ("assistant", "Noted: vegetarian for Ana, no shellfish for you. Ao 26 and Prado are good fits for both."),
    (
        "user",
        "Great. Also I started a new job at Siemens in Munich in March, so I can only take six days off.",
    ),
    (
        "assistant",
        "Six days works: three in Lisbon, a day trip to Sintra, two in Porto by train. Does that fit?",
    ),
    (
        "user",
        "Perfect. We'll fly from Munich on May 24th. Please remind me to book the Sintra tickets early.",
    ),
    (
        "assistant",
        "Will do. I'll also keep in mind that you prefer aisle seats and trains over domestic flights.",
    ),
)


def episode_body(user_id: str, source: str = "memhq-bench") -> bytes:
    """The JSON body of ``POST /v1/memhq/add`` for ``user_id`` (about 1.3 kB)."""
    messages = [{"role": role, "content": content} for role, content in CONVERSATION]
    return json.dumps({"user_id": user_id, "messages": messages, "metadata": {"source": source}}).encode()
