"""Word lists the rules extractor's patterns key on (lower-case lemmas unless noted).

Kept apart from the patterns so they can grow without touching logic. They are deliberately small and
common-case: the rules extractor is the offline default, and a word missing here only means the clause
falls back to the generic verb-lemma predicate, not that it is lost.
"""

from __future__ import annotations

from typing import Final


def words(text: str) -> frozenset[str]:
    """A word set written as whitespace-separated text (keeps long lists readable)."""
    return frozenset(text.split())


#: Pronouns that put the speaker in a sentence.
SPEAKER_WORDS: Final = words("i me my mine myself we us our ours ourselves")

#: Relationship nouns → predicate.
RELATION_NOUNS: Final[dict[str, str]] = {
    **dict.fromkeys(("wife", "husband", "spouse"), "spouse"),
    **dict.fromkeys(
        ("boyfriend", "girlfriend", "partner", "fiance", "fiancee", "fiancé", "fiancée"), "partner"
    ),
    **dict.fromkeys(("sister", "brother", "sibling", "twin"), "sibling"),
    **dict.fromkeys(("son", "daughter", "kid", "child", "baby", "children", "kids"), "has_child"),
    **dict.fromkeys(("mom", "mother", "mum", "dad", "father", "parent", "parents"), "parent"),
    **dict.fromkeys(
        (
            "grandma",
            "grandmother",
            "grandpa",
            "grandfather",
            "aunt",
            "uncle",
            "cousin",
            "niece",
            "nephew",
            "grandson",
            "granddaughter",
            "stepmom",
            "stepdad",
            "stepson",
            "stepdaughter",
        ),
        "relative",
    ),
    **dict.fromkeys(("friend", "buddy", "bff", "bestie", "pal", "roommate", "flatmate"), "friend"),
    **dict.fromkeys(("colleague", "coworker", "co-worker", "teammate", "cofounder"), "colleague"),
    **dict.fromkeys(("boss", "manager", "supervisor"), "manager"),
    "mentor": "mentor",
}

#: Pets (lemmas).
PET_NOUNS: Final = words(
    """
    dog cat puppy kitten hamster rabbit bunny parrot bird fish turtle tortoise horse pony guinea snake lizard
    gecko ferret pup goldfish chinchilla greyhound labrador retriever poodle terrier beagle husky bulldog
    corgi dachshund spaniel collie pug chihuahua budgie canary cockatiel iguana axolotl pig
    """
)

#: Diets, as adjectives or nouns ("I'm vegan", "I'm a vegetarian", "I went vegan").
DIETS: Final = frozenset(
    {
        "vegan",
        "vegetarian",
        "pescatarian",
        "pescetarian",
        "keto",
        "paleo",
        "carnivore",
        "flexitarian",
        "gluten-free",
        "halal",
        "kosher",
        "omnivore",
    }
)

#: Relationship statuses ("I'm married", "I got engaged").
RELATIONSHIP_STATUSES: Final = frozenset({"married", "single", "engaged", "divorced", "widowed", "separated"})

#: Adjectives of interest that take "in/on/about" ("interested in", "keen on", "passionate about").
INTEREST_ADJECTIVES: Final = frozenset({"interested", "keen", "passionate", "curious", "fascinated"})

#: Occupation nouns (heads of "I'm a data engineer", "I work as a nurse").
OCCUPATIONS: Final = words(
    """
    teacher nurse doctor physician engineer developer programmer designer lawyer attorney accountant manager
    consultant writer author artist painter musician singer chef cook scientist researcher professor
    lecturer architect analyst photographer pharmacist dentist therapist counselor counsellor psychologist
    mechanic electrician plumber carpenter pilot driver farmer firefighter officer soldier journalist
    editor salesperson entrepreneur founder cofounder ceo cto cfo freelancer barista waiter waitress cashier
    clerk librarian veterinarian vet surgeon paramedic intern tutor coach trainer instructor dancer actor
    actress student accountant banker broker realtor baker butcher tailor translator interpreter
    administrator assistant receptionist secretary technician scientist biologist chemist physicist
    mathematician economist marketer recruiter producer director streamer youtuber blogger influencer
    lead supervisor specialist coordinator caregiver nanny auditor strategist executive bartender optometrist
    """
)

#: Things one owns ("I have a car", "I bought a new laptop").
OWNABLE_NOUNS: Final = words(
    """
    car bike bicycle motorcycle motorbike scooter truck van suv boat house home apartment flat condo cabin
    laptop computer pc phone iphone tablet ipad camera guitar piano violin drum drums keyboard console tv
    watch kindle printer drone
    """
)

#: Nouns naming a job, for "got a job at X" / "started a new role as Y".
JOB_NOUNS: Final = frozenset({"job", "position", "role", "internship", "gig", "post"})

#: Verbs that mean a job was taken (not lost) when they govern a job noun.
JOB_TAKING_VERBS: Final = frozenset(
    {"get", "start", "begin", "land", "accept", "take", "have", "find", "secure", "receive", "score"}
)

#: Nouns that make "join X" a membership rather than a new employer.
GROUP_NOUNS: Final = frozenset(
    {
        "club",
        "group",
        "team",
        "class",
        "gym",
        "choir",
        "band",
        "league",
        "community",
        "society",
        "circle",
        "course",
        "program",
        "programme",
        "union",
        "church",
        "association",
        "organization",
        "organisation",
    }
)

#: Nouns that stand for the speaker's own business ("our startup pivoted to B2C" is about the speaker).
SPEAKER_BUSINESS_NOUNS: Final = words("company startup business firm product team agency")

#: Words making an extra line of work additional rather than a replacement ("I also work on ...").
ADDITIVE_WORDS: Final = frozenset({"also", "too", "additionally", "side"})

#: Determiners and quantifiers stripped from the front of object values.
OBJECT_LEADING_DROP: Final = frozenset(
    {"a", "an", "the", "some", "this", "that", "these", "those", "any", "to", "about", "of"}
)

#: Objects that only point at something said before ("I hate *them*").
BARE_PRONOUNS: Final = frozenset(
    {"it", "them", "this", "that", "these", "those", "one", "ones", "him", "her"}
)

#: Subjects that cannot carry an opinion claim on their own ("it's too big for me").
VAGUE_SUBJECTS: Final = frozenset(
    {
        "it",
        "this",
        "that",
        "they",
        "these",
        "those",
        "he",
        "she",
        "which",
        "what",
        "there",
        "everything",
        "anything",
        "something",
        "nothing",
        "all",
        "both",
        "one",
    }
)

#: Programming languages (lower-case), for ``main_language`` ("I switched to TypeScript").
PROGRAMMING_LANGUAGES: Final = words(
    """
    python javascript typescript java kotlin scala swift rust go golang ruby php perl c c++ c# f# haskell
    elixir erlang clojure lua dart julia r matlab fortran cobol ocaml zig nim crystal groovy objective-c
    """
)

#: Words for all meat: not eating it is a vegetarian diet ("I stopped eating meat").
MEAT_WORDS: Final = words("meat")

#: Kinds of value a standing instruction sets, one word each: a new word of the same kind replaces the old
#: one ("always reply in English" → "from now on, reply in German"; "keep it brief" → "be detailed").
INSTRUCTION_VALUE_KINDS: Final = (
    words(
        """
        english german french spanish portuguese italian dutch polish russian ukrainian turkish arabic hebrew
        hindi bengali urdu chinese mandarin cantonese japanese korean vietnamese thai indonesian malay
        swedish norwegian danish finnish greek czech hungarian romanian catalan
        """
    ),
    words("metric imperial"),
    words("formal informal casual"),
    words("brief short concise detailed long thorough"),
    words("celsius fahrenheit"),
    words("british american"),
)

#: Parts of an employer one is moved to, not a home ("I've been moved to the search team").
WORKPLACE_NOUNS: Final = words("office department division branch project role position shift unit squad")
#: What one moves into when one moves house: "we moved into a flat in Leeds".
HOME_NOUNS: Final = frozenset({"flat", "apartment", "house", "home", "place", "condo", "studio", "townhouse"})
#: Common nouns one lives in besides a home or a place ("I live in the same building as my sister").
DWELLINGS: Final = words("building street road block dorm dormitory van boat caravan cabin campus")
#: Verbs of a thing's timetable: "my lease ends in August", "my course starts in May" say a date.
TIMETABLE_VERBS: Final = words("start begin end expire leave depart arrive open close finish renew")
#: What "I work at …" names that is no employer: a time, a pace, a place of one's own.
NO_EMPLOYER: Final = words(
    "home office night nights pace speed rate level desk moment time hour hours weekend weekends"
)
#: Places named by a common noun that one can move to ("we moved to the suburbs"); a move "to a parabola"
#: or "to the next problem" is none.
PLACE_NOUNS: Final = HOME_NOUNS | words(
    "suburbs suburb countryside city town village coast country area neighborhood neighbourhood island "
    "state abroad states capital mountains seaside"
)
