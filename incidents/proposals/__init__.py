"""Public proposals: anyone proposes a new case or a correction; editors review them."""
