"""What the rules extractor reads in a life that changes: where one works from (``rules_work_setting``), a
death in the family, two verbs of one subject (``rules_verb_parts``), an upgrade to a new version, a move
"back to" a place, and a date someone else moved (``rules_settings``). And what only looks like these."""

from __future__ import annotations

import pytest

from tests.ingestion.rules_support import one


def facts(text: str) -> list[tuple[str, str, str]]:
    return [(c.predicate, c.object, c.claim) for c in one(text)]


@pytest.mark.parametrize(
    ("text", "setting"),
    [
        ("I work remotely.", "remote"),
        ("I'm fully remote these days.", "remote"),
        ("I work from home on Fridays.", "hybrid"),
        ("I work in the office two days a week.", "hybrid"),
        ("I'm back in the office full time now.", "in the office"),
        ("We went fully remote last year.", "remote"),
    ],
)
def test_where_the_speaker_works_from(text: str, setting: str | None) -> None:
    found = [c.object for c in one(text) if c.predicate == "work_setting"]
    assert found == ([setting] if setting else [])


@pytest.mark.parametrize(
    "text",
    [
        "I'm in the office today.",  # where one is, not how one works
        "I'm working from home this week.",
        "I work on remote sensing.",
        "I worked remotely at my last job.",
    ],
)
def test_what_is_no_work_setting(text: str) -> None:
    assert not [c for c in one(text) if c.predicate == "work_setting"]


def test_a_setting_and_an_employer_in_one_clause() -> None:
    predicates = {c.predicate: c.object for c in one("I work remotely for a startup in Berlin.")}
    assert predicates["work_setting"] == "remote"
    assert "works_at" in predicates


@pytest.mark.parametrize(
    ("text", "claim"),
    [
        ("My grandmother passed away in March.", "User's grandmother passed away in March 2024."),
        ("Biscuit died last night.", "Biscuit died on 9 May 2024."),
    ],
)
def test_a_death_is_stored_as_an_event(text: str, claim: str) -> None:
    [cand] = one(text)
    assert (cand.predicate, cand.kind, cand.claim) == ("died", "event", claim)


@pytest.mark.parametrize(
    "text", ["I almost died laughing.", "My grandfather could die any day.", "I'd die for a coffee."]
)
def test_a_figure_of_speech_is_no_death(text: str) -> None:
    assert not [c for c in one(text) if c.predicate == "died"]


def test_two_verbs_of_one_subject_are_two_claims() -> None:
    assert facts("I finished Middlemarch and started a new thriller.") == [
        ("finish", "Middlemarch", "User finished Middlemarch."),
        ("start", "a new thriller", "User started a new thriller."),
    ]


def test_a_gerund_run_on_stays_with_its_verb() -> None:
    [(_, obj, _)] = facts("I really believe in community and supporting each other.")
    assert obj == "in community and supporting each other"


@pytest.mark.parametrize(
    ("text", "used"),
    [
        ("I upgraded to a Pixel 8.", "Pixel 8"),
        ("We upgraded Redis to v7.0.5 last week.", "Redis v7.0.5"),
        ("I've upgraded my NVIDIA driver to 525.60.11.", "NVIDIA driver 525.60.11"),
        ("I switched to Python 3.12.", "Python 3.12"),
    ],
)
def test_an_upgrade_is_the_new_version_used(text: str, used: str) -> None:
    assert [c.object for c in one(text) if c.predicate == "uses"] == [used]


@pytest.mark.parametrize(
    "text",
    [
        "I upgraded my backend dependencies to the latest stable versions.",
        "I upgraded my laptop to 32GB of RAM.",
    ],
)
def test_an_upgrade_to_no_name_uses_nothing(text: str) -> None:
    assert not [c for c in one(text) if c.predicate == "uses"]


def test_a_past_use_is_not_a_tool_in_use() -> None:
    assert [c.predicate for c in one("I used the distance formula.")] == ["used"]


def test_a_move_is_to_a_place() -> None:
    assert [c.object for c in one("We moved to the suburbs last year.") if c.predicate == "lives_in"] == [
        "suburbs"
    ]
    assert not [c for c in one("Now I move from an ellipse to a parabola.") if c.predicate == "lives_in"]


def test_a_move_back_is_a_new_home_and_moving_on_is_none() -> None:
    assert [(c.predicate, c.object) for c in one("We moved back to Denver last year.")] == [
        ("lives_in", "Denver")
    ]
    assert not [c for c in one("Now I'm moving on to Phase 2.") if c.predicate == "lives_in"]
    assert not [c for c in one("I went back to work at my old firm.") if c.predicate == "visited"]


@pytest.mark.parametrize(
    ("text", "claim"),
    [
        ("The dentist moved my appointment to May 20.", "User's appointment is 20 May 2024."),
        ("My boss pushed our team review to May 24.", "User's team review is 24 May 2024."),
    ],
)
def test_a_date_someone_else_moved(text: str, claim: str) -> None:
    assert [c.claim for c in one(text) if c.predicate == "is"] == [claim]


def test_a_date_someone_else_moved_for_themselves_is_not_the_speakers() -> None:
    assert not [c for c in one("They moved the launch to May 20.") if c.predicate == "is"]


def test_an_allergy_the_parser_misreads_and_its_denial() -> None:
    assert [(c.predicate, c.object) for c in one("I'm allergic to shellfish.")] == [
        ("allergic_to", "shellfish")
    ]
    denied = one("Turns out I'm not allergic to shellfish after all.")
    assert [(c.predicate, c.object) for c in denied] == [("no_longer_allergic_to", "shellfish")]


def test_a_time_of_the_speakers_thing_and_a_habit_cut_out() -> None:
    assert [c.claim for c in one("My standup is at 9:30.")] == ["User's standup is at 9:30."]
    assert [(c.predicate, c.object) for c in one("I've cut out coffee completely.")] == [("left", "coffee")]


@pytest.mark.parametrize(
    ("text", "prohibition"),
    [
        ("You can use bullet points again.", "never use bullet points"),
        ("Feel free to add emojis again!", "never add emojis"),
        ("It's fine to include a summary again.", "never include a summary"),
    ],
)
def test_a_permission_ends_a_prohibition(text: str, prohibition: str) -> None:
    [cand] = one(text)
    assert (cand.predicate, cand.object) == ("no_longer_instructs_assistant", prohibition)
    assert cand.claim.startswith("User lets the assistant ")


def test_a_permission_needs_again_and_a_verb_of_writing() -> None:
    assert not one("You can go now.")
    assert not one("You can use bullet points.")


def test_a_race_distance_is_no_date() -> None:
    assert [c.object for c in one("I'm training for a 10k.")] == ["for a 10k"]


def test_a_value_used_instead_of_another_lately_ends_it() -> None:
    found = [(c.predicate, c.object) for c in one("I've been using Zed instead of Sublime Text lately.")]
    assert found == [("uses", "Zed"), ("no_longer_uses", "Sublime Text")]


@pytest.mark.parametrize(
    ("text", "instruction"),
    [
        ("Oh and please stop suggesting wine pairings.", "never suggest wine pairings"),
        ("Stop using emojis.", "never use emojis"),
    ],
)
def test_stop_before_a_verb_of_writing_is_a_standing_instruction(text: str, instruction: str) -> None:
    assert [(c.predicate, c.object) for c in one(text)] == [("instructs_assistant", instruction)]


def test_stop_before_another_verb_is_no_instruction() -> None:
    assert not [c for c in one("Stop worrying about it.") if c.predicate == "instructs_assistant"]


@pytest.mark.parametrize(
    ("text", "ending"),
    [
        ("My manager left in October.", "no_longer_manager"),
        ("My boss retired last month.", "no_longer_manager"),
        ("My girlfriend left me.", "no_longer_partner"),
    ],
)
def test_the_holder_of_a_tie_who_goes_ends_it(text: str, ending: str) -> None:
    [cand] = one(text)
    assert (cand.predicate, cand.object, cand.subject) == (ending, "", "user")  # the user themself


def test_a_partner_who_left_a_job_is_still_one() -> None:
    assert not [c for c in one("My boyfriend left his job.") if c.predicate == "no_longer_partner"]


def test_an_employer_called_by_name() -> None:
    found = [
        (c.predicate, c.object) for c in one("I'm now working at a small fintech called Tink as a designer.")
    ]
    assert found == [("works_at", "Tink"), ("job_title", "designer")]


def test_how_completely_a_habit_stopped_is_not_what_stopped() -> None:
    assert [(c.predicate, c.object) for c in one("I've stopped drinking alcohol completely.")] == [
        ("no_longer_drink", "alcohol")
    ]


@pytest.mark.parametrize(
    ("text", "weight"),
    [
        ("I weigh 180 pounds.", "180 pounds"),
        ("I'm down to 165 pounds now.", "165 pounds"),
        ("I'm up to 72 kg.", "72 kg"),
    ],
)
def test_a_weight_in_any_wording_is_one_predicate(text: str, weight: str) -> None:
    assert [c.object for c in one(text) if c.predicate == "weight"] == [weight]


@pytest.mark.parametrize("text", ["I weigh my options carefully.", "I lost 10 pounds.", "I'm 34."])
def test_what_is_no_weight(text: str) -> None:
    assert not [c for c in one(text) if c.predicate == "weight"]


def test_a_new_email_address_is_the_value_of_the_speakers_email() -> None:
    assert [c.claim for c in one("I changed my email to sam@example.com.")] == [
        "User's email is sam@example.com."
    ]
