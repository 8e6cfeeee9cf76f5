"""How one works and what one prefers, read by the rules extractor: working for oneself, a return to the
office, a thing chosen over another, a preference against another, "avoid" as a standing instruction, a
past said with the present's form ("I hurt my knee"), a second verb of "we" ("… and are renting"), a liking
of a bare pronoun. And what only looks like these."""

from __future__ import annotations

import pytest

from tests.ingestion.test_rules_own_states import claims, facts


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("I'm self-employed now.", [("user", "works_at", "self-employed")]),
        ("I went freelance in the spring.", [("user", "works_at", "self-employed")]),
        (
            "I freelance as a copy editor.",
            [("user", "works_at", "self-employed"), ("user", "job_title", "copy editor")],
        ),
        ("I'm a freelancer these days.", [("user", "works_at", "self-employed")]),
        ("I run my own business.", [("user", "works_at", "self-employed")]),
        ("My cousin is a freelancer.", [("user's cousin", "works_at", "self-employed")]),
    ],
)
def test_working_for_oneself(text: str, wanted: list[tuple[str, str, str]]) -> None:
    assert [f for f in facts(text) if f[1] in ("works_at", "job_title")] == wanted


@pytest.mark.parametrize(
    "text",
    [
        "I was self-employed for years.",  # a past spell
        "I'm not self-employed.",
        "I run the design team.",  # not one's own business
    ],
)
def test_what_is_not_working_for_oneself(text: str) -> None:
    assert ("user", "works_at", "self-employed") not in facts(text)


@pytest.mark.parametrize(
    ("text", "setting"),
    [
        ("My company called everyone back to the office.", "in the office"),
        ("Our employer called us back to the office.", "in the office"),
        ("We have to be in the office four days a week now.", "hybrid"),
        ("I need to be in the office every day now.", "in the office"),
        ("We returned to the office in February.", "in the office"),
        ("I'm going back to the office two days a week.", "hybrid"),
    ],
)
def test_a_return_to_the_office(text: str, setting: str) -> None:
    assert [f[2] for f in facts(text) if f[1] == "work_setting"] == [setting]


@pytest.mark.parametrize(
    "text",
    [
        "I went back to the office to pick up my charger.",  # a trip back
        "I came back to the office after lunch.",
        "My manager called me back to go over the numbers.",
        "I returned to the office.",  # nothing says it lasts
    ],
)
def test_a_trip_back_is_no_setting(text: str) -> None:
    assert not [f for f in facts(text) if f[1] == "work_setting"]


def test_a_return_said_ahead_is_dated_ahead() -> None:
    (claim,) = [c for c in claims("We're going back to the office in January.") if "office" in c]
    assert claim == "User is going back to the office in January 2025."  # said in May 2024


def test_what_one_prepares_for_by_a_long_name_is_ahead() -> None:
    assert claims("I'm preparing for the Cloud Practitioner certification exam in June.") == [
        "User is preparing for the Cloud Practitioner certification exam in June 2024."
    ]


@pytest.mark.parametrize(
    ("text", "decided"),
    [
        ("We went with Hetzner instead of AWS.", ["Hetzner"]),
        ("We went with Hetzner over AWS for hosting.", ["Hetzner"]),
        ("I'm going with Wren to the gallery.", []),  # whom one goes with
    ],
)
def test_a_thing_chosen_over_another(text: str, decided: list[str]) -> None:
    assert [f[2] for f in facts(text) if f[1] == "decided"] == decided


@pytest.mark.parametrize(
    ("text", "instruction"),
    [
        ("I'm colorblind, so avoid red-green charts.", "avoid red-green charts"),
        ("I'm colorblind, so please avoid red-green charts.", "avoid red-green charts"),
        ("Avoid jargon.", "avoid jargon"),
    ],
)
def test_avoid_is_a_standing_instruction(text: str, instruction: str) -> None:
    found = facts(text)
    assert [f[2] for f in found if f[1] == "instructs_assistant"] == [instruction]
    assert all("avoid" not in f[2] for f in found if f[1] != "instructs_assistant")


@pytest.mark.parametrize("text", ["Please avoid the toll road on this route.", "Avoid it."])
def test_avoiding_a_thing_at_hand_is_no_standing_instruction(text: str) -> None:
    assert not [f for f in facts(text) if f[1] == "instructs_assistant"]


@pytest.mark.parametrize(
    ("text", "claim"),
    [
        ("I hurt my back lifting boxes.", "User hurt User's back lifting boxes."),
        ("I cut my hair short.", "User cut User's hair short."),
        (
            "We sold the boat and are renting a cabin for now.",
            "User sold the boat and is renting a cabin for now.",
        ),
    ],
)
def test_the_tense_and_number_of_the_verbs(text: str, claim: str) -> None:
    assert claim in claims(text)


def test_a_liking_of_a_bare_pronoun_is_no_memory() -> None:
    found = facts("Don't suggest anything with olives, I hate them.")
    assert [f[1] for f in found] == ["instructs_assistant"]


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("I smoke.", ("user", "smoke", "smoking")),
        ("I don't drink.", ("user", "not_drink", "drinking")),
        ("I don't drive.", ("user", "not_drive", "driving")),
        ("I can't swim.", ("user", "not_swim", "swimming")),
        ("I don't cook much.", ("user", "not_cook", "cooking")),
        ("I don't smoke anymore.", ("user", "no_longer_smoke", "smoking")),
        ("My husband doesn't drive.", ("user's husband", "not_drive", "driving")),
    ],
)
def test_a_habit_said_with_its_verb_alone(text: str, wanted: tuple[str, str, str]) -> None:
    assert facts(text) == [wanted]


@pytest.mark.parametrize(
    "text",
    ["I didn't drive today.", "I'd never smoke.", "I can drive.", "I don't know."],
)
def test_what_is_no_habit(text: str) -> None:
    assert not [f for f in facts(text) if f[2].endswith("ing")]


@pytest.mark.parametrize(
    ("text", "claim"),
    [
        ("Just so you know, I'm deaf in one ear.", "User is deaf in one ear."),
        ("For future reference, I'm based in Leeds.", "User is based in Leeds."),
        ("FYI, I use Windows at work.", "User uses Windows at work."),
    ],
)
def test_an_aside_about_the_telling_is_no_part_of_the_claim(text: str, claim: str) -> None:
    assert claims(text)[0] == claim


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("I just started a new role as head of data at Monzo.", "head of data"),
        ("I'm the director of engineering at Brex.", "director of engineering"),
        ("I'm a senior data engineer at Spotify.", "senior data engineer"),
    ],
)
def test_a_title_with_its_field(text: str, title: str) -> None:
    assert [f[2] for f in facts(text) if f[1] == "job_title"] == [title]


@pytest.mark.parametrize("text", ["I'm the only designer at my company.", "I'm a designer at our startup."])
def test_ones_own_company_unnamed_is_no_new_employer(text: str) -> None:
    assert not [f for f in facts(text) if f[1] == "works_at"]


def test_a_liking_of_a_pronoun_with_more_words_is_kept() -> None:
    assert "User read that novel in summer 2023 and loved it." in claims(
        "I read that novel last summer and loved it."
    )


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("We broke up.", "user"),
        ("Noor and I split up last month.", "user"),
        ("I broke up with my boyfriend.", "user"),
        ("My brother broke up with his girlfriend.", "user's brother"),
    ],
)
def test_a_break_up_ends_the_partner(text: str, subject: str) -> None:
    found = [f for f in facts(text) if f[1] != "left"]  # "left" the partner named, as before
    assert found == [(subject, "no_longer_partner", ""), (subject, "relationship_status", "single")]


@pytest.mark.parametrize("text", ["We didn't break up.", "We might break up.", "The band broke up."])
def test_what_is_no_break_up(text: str) -> None:
    assert not [f for f in facts(text) if f[1] == "relationship_status"]


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("I started smoking again.", ("user", "smoke", "smoking")),
        ("I started running again.", ("user", "hobby", "running")),
        ("I moved back in with my parents.", ("user", "lives_with", "User's parents")),
    ],
)
def test_taken_up_again(text: str, wanted: tuple[str, str, str]) -> None:
    assert facts(text) == [wanted]


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        (
            "I'm a sommelier at Harrow Hotels.",  # no job of the lexicon: at an organisation all the same
            [("user", "job_title", "sommelier"), ("user", "works_at", "Harrow Hotels")],
        ),
        ("Ugh, my employer called us back to the office.", [("user", "work_setting", "in the office")]),
        ("My flatmate and I share a flat in Dundee.", [("user", "lives_in", "Dundee")]),
        (
            "I don't drink, so skip the wine pairings.",
            [("user", "instructs_assistant", "skip the wine pairings")],
        ),
        ("When you show me code, add comments.", [("user", "instructs_assistant", "add comments")]),
        ("I'm a sophomore at UCLA.", [("user", "studies_at", "UCLA")]),  # a student there, no employee
    ],
)
def test_said_in_other_words(text: str, wanted: list[tuple[str, str, str]]) -> None:
    found = facts(text)
    assert all(w in found for w in wanted), found


@pytest.mark.parametrize(
    ("text", "unwanted"),
    [
        ("I'm a customer at Harrow Hotels.", "works_at"),
        ("My boss works from home.", "work_setting"),  # the boss's, not the speaker's
        ("Skip this part.", "instructs_assistant"),
        ("When you see Tom, say hi.", "instructs_assistant"),  # not of the answers
        ("I'm a sophomore at UCLA.", "works_at"),
    ],
)
def test_what_only_looks_like_it(text: str, unwanted: str) -> None:
    assert not [f for f in facts(text) if f[1] == unwanted and f[0] == "user"]


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("Our launch is planned for March 3rd.", ("user's launch", "plan", "")),  # the date is the claim's
        ("My new favorite show is Severance.", ("user", "favorite_show", "Severance")),
    ],
)
def test_a_date_planned_and_a_favourite_now(text: str, wanted: tuple[str, str, str]) -> None:
    assert facts(text) == [wanted]


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("Correction: it's Django 4.2, not 4.1.", [("user", "uses", "Django 4.2")]),
        ("Sorry, that was Node 20, not 18.", [("user", "uses", "Node 20")]),
        ("It's Django, not Flask.", []),  # no version
    ],
)
def test_a_version_corrected_with_a_pronoun(text: str, wanted: list[tuple[str, str, str]]) -> None:
    assert facts(text) == wanted


@pytest.mark.parametrize(
    ("text", "tool"),
    [
        ("We're on Vue 3 now.", "Vue 3"),
        ("I'm on Windows 11 with WSL2.", "Windows 11"),
        ("I'm on Broadway.", None),
    ],
)
def test_a_tool_one_is_on(text: str, tool: str | None) -> None:
    assert [f[2] for f in facts(text) if f[1] == "uses"] == ([tool] if tool else [])


def test_every_name_of_a_list() -> None:
    found = facts("I have three kids: Ines, Tomas and Vera.")
    assert [f[2] for f in found if f[1] == "has_child"] == ["Ines", "Tomas", "Vera"]


def test_college_started_at_a_school_is_no_employer() -> None:
    assert facts("My son started college at Ohio State.") == [("user's son", "studies_at", "Ohio State")]


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("My cousin just had twins.", ("user's cousin", "has_child", "twin")),  # born to her
        ("I have a twin.", ("user", "sibling", "twin")),
        ("We had a baby boy named Arlo.", ("user", "has_child", "Arlo")),
    ],
)
def test_children_born(text: str, wanted: tuple[str, str, str]) -> None:
    assert wanted in facts(text)
