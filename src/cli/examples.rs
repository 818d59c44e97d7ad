//! The examples under each command's help, laid out for the width the help is printed at.
//!
//! clap wraps every help line that is too long at a space. For prose that is right; for an
//! example it is dangerous: `announce … --duration 10m` on one line and `--dry-run` on the next
//! runs a real announce when the first line is pasted, and a wrapped `# comment` leaves its tail
//! as a command. So before clap sees the text, each example command is broken with ` \`
//! continuations (the shell reads them as one command) and each comment is continued with `#`,
//! every line within the width. clap then finds nothing to wrap there.

/// A command line starts with two spaces and is not a comment.
const INDENT: &str = "  ";
/// Continuation lines of a command, deeper than the command.
const CONTINUED: &str = "      ";
const COMMENT: &str = "  # ";

/// `text` with its example commands and comments fitted to `width` columns; prose (lines that
/// do not start with two spaces) is left for clap to wrap.
pub(crate) fn layout(text: &str, width: usize) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let Some(body) = line.strip_prefix(INDENT).filter(|b| !b.starts_with(' ') && !b.is_empty()) else {
            out.push(line.to_string());
            continue;
        };
        if let Some(comment) = body.strip_prefix("# ") {
            out.extend(fill(comment, COMMENT, COMMENT, "", width));
            continue;
        }
        // A command already continued with ` \` is one command: join it, then break it again.
        let mut command = body.to_string();
        while command.ends_with(" \\") {
            command.truncate(command.len() - 2);
            match lines.next() {
                Some(next) => {
                    command.push(' ');
                    command.push_str(next.trim());
                }
                None => break,
            }
        }
        out.extend(fill(&command, INDENT, CONTINUED, " \\", width));
    }
    let mut text = out.join("\n");
    if text.is_empty() {
        return text;
    }
    text.push('\n');
    text
}

/// Words of `text` packed greedily: the first line after `first`, the others after `next`,
/// every line but the last ending in `end`. A word longer than a line stands alone (it cannot be
/// broken), and clap does not break it either.
fn fill(text: &str, first: &str, next: &str, end: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = first.to_string();
    let mut empty = true;
    for word in text.split_whitespace() {
        let fits = line.chars().count() + 1 + word.chars().count() + end.chars().count() <= width;
        if !empty && !fits {
            lines.push(format!("{line}{end}"));
            line = next.to_string();
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(word);
        empty = false;
    }
    lines.push(line);
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_command_is_continued_and_every_line_fits() {
        let text = "Examples:\n  # Answer for 10 minutes (Ctrl-C stops it sooner)\n  sudo kubectl lbdoctor announce 192.0.2.10 --interface eth0 --duration 10m --dry-run\n\nProse stays.";
        let out = layout(text, 40);
        assert_eq!(
            out,
            "Examples:\n  # Answer for 10 minutes (Ctrl-C stops\n  # it sooner)\n  sudo kubectl lbdoctor announce \\\n      192.0.2.10 --interface eth0 \\\n      --duration 10m --dry-run\n\nProse stays.\n"
        );
        assert!(out.lines().all(|l| l.chars().count() <= 40), "{out}");
    }

    #[test]
    fn a_continued_command_is_joined_before_it_is_laid_out_again() {
        let text = "  kubectl lbdoctor simulate --label worker-b \\\n      key=\n";
        assert_eq!(layout(text, 200), "  kubectl lbdoctor simulate --label worker-b key=\n");
    }
}
