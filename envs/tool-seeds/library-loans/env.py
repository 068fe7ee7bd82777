"""A library desk behind four tools: lend a member the book they ask for, clearing their overdue loans first, then name the loan.

A tool environment: step(action) receives a parsed tool call, a dict {"name": ..., "arguments": {...}}, or
the agent's final message, a str. Every id comes from an earlier result: the book's from search_catalog, the
overdue loans' from get_member, the new loan's from borrow. A loan is refused with an error observation when
the edition has no copy on the shelf or the member still holds an overdue book. Levels add editions without a
copy and a look-alike title, then overdue loans to return (flagged at level 2, to be read off the due days at level 3).
"""

import random
import re

LEVELS = [
    # (editions of the title, a look-alike title in the search results, overdue loans, loans kept, overdue loans flagged as such)
    (1, False, 0, 1, True),
    (2, True, 0, 2, True),
    (2, True, 1, 1, True),
    (3, True, 2, 2, False),
]
MAX_CALLS = 12
ADJECTIVES = ["Glass", "Silent", "Hidden", "Northern", "Copper", "Winter", "Paper", "Salt", "Amber", "Hollow"]
NOUNS = ["River", "Orchard", "Lantern", "Harbor", "Garden", "Mountain", "Letters", "Clock", "Meadow", "Tide"]
EDITIONS = ["hardback", "paperback", "large print"]
MEMBERS = ["Ana Ruiz", "Ben Okafor", "Chen Wei", "Dita Novak", "Emil Berg", "Fatima Saleh"]


class LibraryLoans:
    def reset(self, seed, level=0):
        rng = random.Random(seed * 31 + level)
        editions, lookalike, overdue, kept, self.flagged = LEVELS[level]
        titles = [f"The {adjective} {noun}" for adjective, noun in rng.sample([(a, n) for a in ADJECTIVES for n in NOUNS], 1 + overdue + kept)]
        self.wanted, held = titles[0], titles[1:]
        book_ids = [f"B-{number}" for number in rng.sample(range(100, 1000), editions + 1 + len(held))]
        stocked = rng.randrange(editions)  # the one edition with copies on the shelf
        self.books = {}  # book id -> {"title", "edition", "shelf"}
        for index, edition in enumerate(rng.sample(EDITIONS, editions)):
            self.books[book_ids[index]] = {"title": self.wanted, "edition": edition, "shelf": rng.randint(1, 3) if index == stocked else 0}
        if lookalike:
            self.books[book_ids[editions]] = {"title": f"{self.wanted}: A Reader's Companion", "edition": "paperback", "shelf": rng.randint(1, 3)}
        for book_id, title in zip(book_ids[editions + 1:], held):
            self.books[book_id] = {"title": title, "edition": rng.choice(EDITIONS), "shelf": rng.randint(0, 2)}
        self.today = rng.randint(30, 90)
        self.member = f"M-{rng.randint(10, 99)}"
        self.name = rng.choice(MEMBERS)
        dues = [self.today - rng.randint(1, 20) for _ in range(overdue)] + [self.today + rng.randint(0, 20) for _ in range(kept)]
        rng.shuffle(dues)
        loan_ids = [f"L-{number}" for number in rng.sample(range(1000, 9000), len(held))]
        self.loans = {loan: {"book": book_id, "due": due} for loan, book_id, due in zip(loan_ids, book_ids[editions + 1:], dues)}  # the member's active loans
        self.kept = {loan for loan, held in self.loans.items() if held["due"] >= self.today}
        self.next_loan = rng.randint(9000, 9899)  # new loans are numbered from here on
        self.calls = []  # every tool call so far, as received
        self.done = False
        self.turns = 0
        return (
            f"{self.name} (member '{self.member}') wants to borrow '{self.wanted}' and has brought back every book they hold that is overdue. "
            "Lend them a copy of exactly that title, following the library's rules (no loan while the member holds an overdue book; only copies on the shelf can be lent). "
            "Use the tools search_catalog, get_member, return_book and borrow, then reply with a final message (no tool call) stating the new loan's id, e.g. 'Loan: L-1234'."
        )

    def new_loan(self):
        """The member's loan of the wanted title, or None."""
        return next((loan for loan, held in self.loans.items() if self.books[held["book"]]["title"] == self.wanted), None)

    def step(self, action):
        if self.done:
            return ("The episode is over.", 0.0, True, False, {})
        self.turns += 1
        if isinstance(action, dict):
            self.calls.append(action)
            observation, invalid = self.call(action["name"], action["arguments"])
            truncated = self.turns >= MAX_CALLS
            self.done = truncated
            return (observation, 0.0, False, truncated, {"invalid_action": invalid})
        self.done = True
        stated = re.findall(r"L-\d+", action, re.IGNORECASE)
        if not stated:
            return ("The final message states no loan id.", 0.0, True, False, {"invalid_action": True})
        loan = self.new_loan()
        if loan is not None and self.kept <= set(self.loans) and stated[-1].upper() == loan:
            return (f"Done: {self.name} borrowed '{self.wanted}' as loan '{loan}'.", 1.0, True, False, {})
        if loan is None:
            return (f"Not done: {self.name} holds no copy of '{self.wanted}'.", 0.0, True, False, {})
        if not self.kept <= set(self.loans):
            return ("Not done: a loan that was not overdue was returned.", 0.0, True, False, {})
        return (f"Not done: the new loan is '{loan}'.", 0.0, True, False, {})

    def call(self, name, arguments):
        if name == "search_catalog":
            query = arguments["query"].strip().lower()
            found = [f"'{book_id}' '{book['title']}' ({book['edition']}), {book['shelf']} on the shelf" for book_id, book in self.books.items() if query and query in book["title"].lower()]
            return ("Found: " + "; ".join(found) if found else f"No title contains '{query}'.", False)
        if name == "get_member":
            member = arguments["member_id"].strip()
            if member != self.member:
                return (f"Error: no member '{member}'.", True)
            loans = [
                f"'{loan}' '{self.books[held['book']]['title']}' due day {held['due']}" + (" (OVERDUE)" if self.flagged and held["due"] < self.today else "")
                for loan, held in self.loans.items()
            ]
            return (f"Member '{member}', {self.name}; today is day {self.today}. Loans: " + (", ".join(loans) or "none"), False)
        if name == "return_book":
            loan = arguments["loan_id"].strip()
            if loan not in self.loans:
                return (f"Error: no active loan '{loan}'.", True)
            book_id = self.loans.pop(loan)["book"]
            self.books[book_id]["shelf"] += 1
            return (f"Returned loan '{loan}' ('{self.books[book_id]['title']}'); the copy is back on the shelf.", False)
        if name == "borrow":
            member, book_id = arguments["member_id"].strip(), arguments["book_id"].strip()
            if member != self.member:
                return (f"Error: no member '{member}'.", True)
            if book_id not in self.books:
                return (f"Error: no book '{book_id}'.", True)
            if any(held["due"] < self.today for held in self.loans.values()):
                return (f"Error: member '{member}' holds an overdue book; it must be returned first.", True)
            if self.books[book_id]["shelf"] == 0:
                return (f"Error: no copy of '{book_id}' is on the shelf.", True)
            self.books[book_id]["shelf"] -= 1
            loan = f"L-{self.next_loan}"
            self.loans[loan] = {"book": book_id, "due": self.today + 21}
            self.next_loan += 1
            return (f"Lent '{book_id}' to '{member}' as loan '{loan}', due day {self.today + 21}.", False)
        return (f"Error: no tool '{name}'.", True)
