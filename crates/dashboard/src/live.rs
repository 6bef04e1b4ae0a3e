//! Runs in progress: per-second points read from the history as the running diskmeter
//! writes them, pushed to the page as server-sent events.
