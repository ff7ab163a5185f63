//! clap's errors as psbench's own: one line (`psbench: error: …`, printed by `main`) and exit
//! code 2. Help and version output stay as clap prints them.

use clap::error::{ContextKind, ContextValue, ErrorKind};

/// What to do with a failed parse: print clap's own output (help, version) or one line.
pub enum Outcome {
    ClapsOwn(clap::Error),
    OneLine(String),
}

/// The one line for a clap error, or clap's own output where that is what was asked for.
pub fn outcome(e: clap::Error) -> Outcome {
    let get = |k: ContextKind| e.get(k).map(text);
    let arg = get(ContextKind::InvalidArg).unwrap_or_default();
    let line = match e.kind() {
        ErrorKind::DisplayHelp
        | ErrorKind::DisplayVersion
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => return Outcome::ClapsOwn(e),
        ErrorKind::UnknownArgument => {
            let what = if arg.starts_with('-') {
                "unknown option"
            } else {
                "unexpected argument"
            };
            let hint = get(ContextKind::SuggestedArg)
                .map(|s| format!("; did you mean `{s}`?"))
                .unwrap_or_default();
            format!("{what} `{arg}`{hint}")
        }
        ErrorKind::InvalidSubcommand => {
            let sub = get(ContextKind::InvalidSubcommand).unwrap_or_default();
            let hint = match get(ContextKind::SuggestedSubcommand) {
                Some(s) => format!("; did you mean `{s}`?"),
                None => {
                    let cmd = <super::Cli as clap::CommandFactory>::command();
                    let names: Vec<String> = cmd
                        .get_subcommands()
                        .map(|c| c.get_name().to_string())
                        .collect();
                    crate::error::suggestion(&sub, names.iter().map(String::as_str))
                }
            };
            format!("unknown command `{sub}`{hint}")
        }
        ErrorKind::InvalidValue | ErrorKind::ValueValidation => {
            let value = get(ContextKind::InvalidValue).unwrap_or_default();
            let why = match (
                std::error::Error::source(&e),
                get(ContextKind::SuggestedValue),
            ) {
                (Some(source), _) => format!(": {source}"),
                (None, Some(s)) => format!("; did you mean `{s}`?"),
                (None, None) => get(ContextKind::ValidValue)
                    .map(|v| format!(" (possible: {v})"))
                    .unwrap_or_default(),
            };
            if value.is_empty() {
                match typed_list(&arg) {
                    Some(list) => format!(
                        "invalid value `{list}` for `{arg}`: an empty item in the list (separate the items by single commas)"
                    ),
                    None => format!("`{arg}` needs a value"),
                }
            } else {
                format!("invalid value `{value}` for `{arg}`{why}")
            }
        }
        ErrorKind::MissingRequiredArgument => match e.get(ContextKind::InvalidArg) {
            Some(ContextValue::Strings(s)) if s.len() > 1 => {
                format!("missing required arguments `{}`", s.join("`, `"))
            }
            _ => format!("missing required argument `{arg}`"),
        },
        ErrorKind::ArgumentConflict => {
            let prior = get(ContextKind::PriorArg).unwrap_or_default();
            format!("`{arg}` cannot be used with `{prior}`")
        }
        _ => first_line(&e),
    };
    Outcome::OneLine(plain(&line))
}

/// What was typed for `arg` ("--threads <THREADS>") when it is a list with commas: an empty
/// value of it is an empty item ("1,,4", "1,"), not a missing value.
fn typed_list(arg: &str) -> Option<String> {
    let flag = arg.split_whitespace().next()?;
    let args: Vec<String> = std::env::args().collect();
    let typed = args.iter().enumerate().find_map(|(i, a)| {
        match a.strip_prefix(flag)?.strip_prefix('=') {
            Some(v) => Some(v.to_string()),
            None if a == flag => args.get(i + 1).cloned(),
            None => None,
        }
    })?;
    typed.contains(',').then_some(typed)
}

fn text(v: &ContextValue) -> String {
    match v {
        ContextValue::Strings(s) => s.join(", "),
        ContextValue::StyledStrs(s) => s
            .iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(", "),
        other => other.to_string(),
    }
}

/// clap's first line of the message, without its "error: ".
fn first_line(e: &clap::Error) -> String {
    let rendered = e.render().to_string();
    let line = rendered.lines().next().unwrap_or_default();
    line.trim_start_matches("error: ").to_string()
}

/// Without ANSI styling (escape sequences) or line breaks.
fn plain(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            // CSI: ESC [ parameters… final letter.
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else if c == '\n' {
            out.push(' ');
        } else {
            out.push(c);
        }
    }
    out.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn line(args: &[&str]) -> String {
        match outcome(super::super::Cli::try_parse_from(args).unwrap_err()) {
            Outcome::OneLine(l) => l,
            Outcome::ClapsOwn(e) => panic!("clap's own: {e}"),
        }
    }

    #[test]
    fn clap_mistakes_are_one_line() {
        assert_eq!(
            line(&["psbench", "run", "--round", "5"]),
            "unknown option `--round`; did you mean `--rounds`?"
        );
        assert_eq!(
            line(&["psbench", "run", "--threads", "abc"]),
            "invalid value `abc` for `--threads <THREADS>`: invalid digit found in string"
        );
        assert_eq!(
            line(&["psbench", "compare", "a"]),
            "missing required argument `<B>`"
        );
        assert_eq!(
            line(&["psbench", "rnu"]),
            "unknown command `rnu`; did you mean `run`?"
        );
        assert_eq!(plain("\x1b[1m--x\x1b[0m\nb"), "--x b");
    }

    #[test]
    fn help_and_version_stay_clap_s() {
        for args in [
            &["psbench", "--help"][..],
            &["psbench", "--version"],
            &["psbench", "help"],
        ] {
            let e = super::super::Cli::try_parse_from(args).unwrap_err();
            assert!(matches!(outcome(e), Outcome::ClapsOwn(_)), "{args:?}");
        }
    }
}
