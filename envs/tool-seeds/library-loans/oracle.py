"""Reference policy: search the title, look the member up when they hold overdue books and return those, borrow the edition on the shelf, name the loan."""


def act(env, observation):
    loan = env.new_loan()
    if loan is not None:
        return f"Loan: {loan}"
    called = {call["name"] for call in env.calls}
    if "search_catalog" not in called:
        return {"name": "search_catalog", "arguments": {"query": env.wanted}}
    overdue = [loan for loan, held in env.loans.items() if held["due"] < env.today]
    if overdue and "get_member" not in called:
        return {"name": "get_member", "arguments": {"member_id": env.member}}
    if overdue:
        return {"name": "return_book", "arguments": {"loan_id": overdue[0]}}
    book_id = next(book_id for book_id, book in env.books.items() if book["title"] == env.wanted and book["shelf"] > 0)
    return {"name": "borrow", "arguments": {"member_id": env.member, "book_id": book_id}}
