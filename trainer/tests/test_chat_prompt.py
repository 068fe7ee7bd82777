"""The Gemma turn fallback (``gemma_turns.jinja``) of tokenizers without a chat template."""

from envforge_trainer.app import ChatMessageBody, chat_prompt


class _NoTemplate:
    bos_token = "<bos>"
    chat_template = None


def _messages(*pairs: tuple[str, str]) -> list[ChatMessageBody]:
    return [ChatMessageBody(role=role, content=content) for role, content in pairs]


def test_system_text_goes_before_the_first_other_turn_and_the_model_turn_is_left_open():
    prompt = chat_prompt(_NoTemplate(), _messages(("system", "Rules."), ("user", "Guess."), ("assistant", "5"), ("user", "Higher.")))
    assert prompt == (
        "<bos><start_of_turn>user\nRules.\n\nGuess.<end_of_turn>\n"
        "<start_of_turn>model\n5<end_of_turn>\n"
        "<start_of_turn>user\nHigher.<end_of_turn>\n"
        "<start_of_turn>model\n"
    )


def test_system_messages_join_with_a_blank_line_even_when_one_is_empty_and_spacing_is_kept():
    prompt = chat_prompt(_NoTemplate(), _messages(("system", ""), ("system", "b"), ("user", "  x \n\t")))
    assert prompt == "<bos><start_of_turn>user\n\n\nb\n\n  x \n\t<end_of_turn>\n<start_of_turn>model\n"


def test_a_lone_system_message_and_a_missing_bos_render_only_the_open_turn():
    class _NoBos(_NoTemplate):
        bos_token = None

    assert chat_prompt(_NoBos(), _messages(("system", "only"))) == "<start_of_turn>model\n"
