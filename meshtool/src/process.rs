//! What both command-line programs set up about their process before anything else.

/// `meshtool info X | head`, `solver cases | head`: a closed pipe ends the process quietly, as it does any
/// Unix tool, instead of a panic in `println!` (Rust ignores SIGPIPE by default, so the write
/// fails and println! panics).
pub fn restore_default_sigpipe() {
    // SAFETY: called first thing in main, before any thread exists; SIG_DFL is a valid handler.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
