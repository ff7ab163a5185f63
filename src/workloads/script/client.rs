//! One pgbench client: its variables, its generators seeded as pgbench seeds them, and the
//! run of one script (pgbench's advanceConnectionState, less the timing and retries that
//! psbench's driver owns).

use super::coerce::truth;
use super::context::Ctx;
use super::eval::eval;
use super::parse::{split_variables, Piece};
use super::prng::PgPrng;
use super::random::getrand;
use super::{
    Command, Meta, MetaCommand, Mode, Rows, RowsWanted, RunError, Script, SleepAmount, Sql,
    SqlCommand, Value,
};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// pgbench's random state for a run with `clients` clients, one per thread (pgbench -c N -j N),
/// seeded as `--random-seed=seed` does: values of the automatic variables and each client's
/// generators.
pub struct Seeding {
    pub random_seed: u64,
    pub default_seed: u64,
    func: Vec<PgPrng>,
    choose: Vec<PgPrng>,
}

impl Seeding {
    pub fn new(seed: u64, clients: usize) -> Seeding {
        Seeding::with_defines(seed, clients, &[])
    }

    /// As [`Seeding::new`], where `-D` variables are given: pgbench draws no default seed
    /// when `-D default_seed=…` is, which moves every thread's generator.
    pub fn with_defines(seed: u64, clients: usize, vars: &[(String, String)]) -> Seeding {
        // main(): the base sequence seeds each client's cs_func_rs, then draws the
        // default seed, then seeds each thread's choose, throttle and sample generators.
        let mut base = PgPrng::seeded(seed);
        let func = (0..clients)
            .map(|_| PgPrng::seeded(base.next_u64()))
            .collect();
        let default_seed = if vars.iter().any(|(n, _)| n == "default_seed") {
            0
        } else {
            base.next_u64()
        };
        let choose = (0..clients)
            .map(|_| {
                let choose = PgPrng::seeded(base.next_u64());
                base.next_u64(); // ts_throttle_rs
                base.next_u64(); // ts_sample_rs
                choose
            })
            .collect();
        Seeding {
            random_seed: seed,
            default_seed,
            func,
            choose,
        }
    }
}

/// pgbench's conditional stack states (fe_utils/conditional.h).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum IfState {
    True,
    False,
    Ignored,
    ElseTrue,
    ElseFalse,
}

/// One client running scripts: its variables and generators.
pub struct Client {
    scripts: Arc<Vec<(Script, u32)>>,
    vars: HashMap<String, Value>,
    func_rs: PgPrng,
    /// cs_func_rs at the start of the last run, for [`Client::rewind`].
    run_start_rs: PgPrng,
    choose_rs: PgPrng,
    mode: Mode,
}

/// pgbench's valid_variable_name.
fn valid_name(name: &str) -> bool {
    let mut b = name.bytes();
    match b.next() {
        Some(c) if c.is_ascii_alphabetic() || c == b'_' || c >= 0x80 => {}
        _ => return false,
    }
    b.all(|c| c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80)
}

impl Client {
    /// `vars`: the -D variables (name, text). `scale`: the `scale` variable.
    /// `client_id` must be below the `clients` of `seeding`.
    pub fn new(
        scripts: Arc<Vec<(Script, u32)>>,
        client_id: usize,
        seeding: &Seeding,
        scale: i64,
        vars: &[(String, String)],
        mode: Mode,
    ) -> Client {
        let mut map: HashMap<String, Value> = vars
            .iter()
            .map(|(n, v)| (n.clone(), Value::Text(v.clone())))
            .collect();
        // The automatic variables do not override a -D of the same name.
        let automatic = [
            ("scale", scale),
            ("client_id", client_id as i64),
            ("default_seed", seeding.default_seed as i64),
            ("random_seed", seeding.random_seed as i64),
        ];
        for (name, v) in automatic {
            map.entry(name.to_string()).or_insert(Value::Int(v));
        }
        let func_rs = *seeding
            .func
            .get(client_id)
            .expect("client_id below the clients the seeding was made for");
        Client {
            scripts,
            vars: map,
            func_rs,
            run_start_rs: func_rs,
            choose_rs: seeding.choose[client_id],
            mode,
        }
    }

    /// The script of the next transaction, drawn as pgbench's chooseScript does (with the
    /// thread's generator; nothing is drawn when there is one script).
    pub fn choose(&mut self) -> usize {
        if self.scripts.len() <= 1 {
            return 0;
        }
        let total: i64 = self.scripts.iter().map(|(_, w)| *w as i64).sum();
        if total == 0 {
            return 0; // pgbench refuses a total weight of zero before it starts
        }
        let mut w = getrand(&mut self.choose_rs, 0, total - 1);
        let mut i = 0;
        loop {
            w -= self.scripts[i].1 as i64;
            i += 1;
            if w < 0 {
                return i - 1;
            }
        }
    }

    /// Put the function generator back where it was when the last run started: pgbench
    /// re-runs a transaction that failed with a serialization or deadlock error with the
    /// same random draws.
    pub fn rewind(&mut self) {
        self.func_rs = self.run_start_rs;
    }

    /// A variable's current value (string-form values as they are held).
    pub fn variable(&self, name: &str) -> Option<&Value> {
        self.vars.get(name)
    }

    /// Run script `script` once (one transaction); debug() lines go to `debug`; when
    /// `timings` is given, adds each command's elapsed time into timings[command] (pgbench -r).
    pub fn run(
        &mut self,
        script: usize,
        sql: &mut dyn Sql,
        debug: &mut dyn std::io::Write,
        mut timings: Option<&mut [Duration]>,
    ) -> Result<(), RunError> {
        let scripts = Arc::clone(&self.scripts);
        let commands = &scripts[script].0.commands;
        self.run_start_rs = self.func_rs;
        let mut stack: Vec<IfState> = Vec::new();
        let mut i = 0;
        while i < commands.len() {
            let active = matches!(stack.last(), None | Some(IfState::True | IfState::ElseTrue));
            if !active && !skip_lands_on_elif(&mut stack, &commands[i]) {
                i += 1;
                continue;
            }
            let start = Instant::now();
            let fail = |message: String| RunError::Script {
                script,
                command: i,
                line: commands[i].line(),
                message,
            };
            match &commands[i] {
                Command::Sql(c) => self.sql(c, script, i, sql).map_err(|e| match e {
                    SqlFail::Sql(e) => RunError::Sql(e),
                    SqlFail::Script(m) => fail(m),
                })?,
                Command::Meta(m) => self.meta(m, &mut stack, script, i, debug).map_err(fail)?,
            }
            if let Some(t) = timings.as_deref_mut() {
                if let Some(slot) = t.get_mut(i) {
                    *slot += start.elapsed();
                }
            }
            i += 1;
        }
        Ok(())
    }

    fn eval(
        &mut self,
        e: &super::Expr,
        script: usize,
        command: usize,
        debug: &mut dyn std::io::Write,
    ) -> Result<Value, String> {
        let mut ctx = Ctx {
            vars: &self.vars,
            rs: &mut self.func_rs,
            debug,
            script,
            command,
        };
        eval(&mut ctx, e)
    }

    fn put(&mut self, context: &str, name: &str, v: Value) -> Result<(), String> {
        if !self.vars.contains_key(name) && !valid_name(name) {
            return Err(format!("{context}: invalid variable name: \"{name}\""));
        }
        self.vars.insert(name.to_string(), v);
        Ok(())
    }

    fn meta(
        &mut self,
        m: &MetaCommand,
        stack: &mut Vec<IfState>,
        script: usize,
        command: usize,
        debug: &mut dyn std::io::Write,
    ) -> Result<(), String> {
        match &m.kind {
            Meta::Set { var, expr } => {
                let v = self.eval(expr, script, command, debug)?;
                self.put(&m.name, var, v)
            }
            Meta::Sleep { amount, unit_us } => {
                let n = match amount {
                    SleepAmount::Fixed(n) => *n,
                    SleepAmount::Var(var) => self.sleep_var(&m.name, var)?,
                };
                let us = n.saturating_mul(*unit_us);
                if us > 0 {
                    std::thread::sleep(Duration::from_micros(us as u64));
                }
                Ok(())
            }
            Meta::If(e) => {
                let c = truth(&self.eval(e, script, command, debug)?);
                stack.push(if c { IfState::True } else { IfState::False });
                Ok(())
            }
            Meta::Elif(e) => {
                // After a branch that ran, the rest of the chain is skipped unevaluated.
                if stack.last() == Some(&IfState::True) {
                    *stack.last_mut().expect("checked") = IfState::Ignored;
                    return Ok(());
                }
                let c = truth(&self.eval(e, script, command, debug)?);
                if let Some(top) = stack.last_mut() {
                    *top = if c { IfState::True } else { IfState::False };
                }
                Ok(())
            }
            Meta::Else => {
                if let Some(top) = stack.last_mut() {
                    *top = IfState::ElseFalse;
                }
                Ok(())
            }
            Meta::Endif => {
                stack.pop();
                Ok(())
            }
        }
    }

    /// pgbench's evaluateSleep on `:var`: atoi of its text, which must start with a digit
    /// unless it reads as non-zero.
    fn sleep_var(&self, cmd: &str, var: &str) -> Result<i64, String> {
        let Some(v) = self.vars.get(var) else {
            return Err(format!("{cmd}: undefined variable \"{var}\""));
        };
        let text = v.to_pgbench_text();
        let t = text.trim_start();
        let (neg, body) = match t.as_bytes().first() {
            Some(b'-') => (true, &t[1..]),
            Some(b'+') => (false, &t[1..]),
            _ => (false, t),
        };
        let digits: String = body.chars().take_while(char::is_ascii_digit).collect();
        let n = digits.parse::<i64>().unwrap_or(0);
        let n = if neg { -n } else { n };
        if n == 0 && !text.starts_with(|c: char| c.is_ascii_digit()) {
            return Err(format!(
                "{cmd}: invalid sleep time \"{text}\" for variable \"{var}\""
            ));
        }
        Ok(n)
    }

    fn sql(
        &mut self,
        c: &SqlCommand,
        script: usize,
        command: usize,
        sql: &mut dyn Sql,
    ) -> Result<(), SqlFail> {
        let want = c.rows != RowsWanted::None;
        let rows = match self.mode {
            Mode::Simple => sql.run_text(&self.substitute(&c.text), want),
            Mode::Prepared => {
                let params: Vec<Value> = c.params.iter().map(|p| self.param(p)).collect();
                sql.run_prepared(script, command, &params, want)
            }
        }
        .map_err(SqlFail::Sql)?;
        match &c.rows {
            RowsWanted::None => Ok(()),
            RowsWanted::Gset { prefix } => {
                let rows = rows.unwrap_or_default();
                if rows.rows.len() != 1 {
                    let msg = format!("expected one row, got {}", rows.rows.len());
                    return Err(SqlFail::Script(msg));
                }
                self.store("gset", prefix, &rows).map_err(SqlFail::Script)
            }
            RowsWanted::Aset { prefix } => match rows {
                Some(rows) if !rows.rows.is_empty() => {
                    self.store("aset", prefix, &rows).map_err(SqlFail::Script)
                }
                _ => Ok(()),
            },
        }
    }

    /// The last row's columns as string-form variables (a NULL column as "", as libpq's
    /// PQgetvalue gives it).
    fn store(&mut self, context: &str, prefix: &str, rows: &Rows) -> Result<(), String> {
        let last = rows.rows.last().expect("checked not empty");
        for (k, col) in rows.columns.iter().enumerate() {
            let name = format!("{prefix}{col}");
            let text = last.get(k).cloned().flatten().unwrap_or_default();
            self.put(context, &name, Value::Text(text))
                .map_err(|e| format!("{e}; error storing into variable {name}"))?;
        }
        Ok(())
    }

    /// A prepared parameter as pgbench sends it: a defined variable's text (NULL is the word
    /// `NULL`, as pgbench writes it), an undefined one as SQL NULL.
    fn param(&self, name: &str) -> Value {
        match self.vars.get(name) {
            None => Value::Null,
            Some(Value::Null) => Value::Text("NULL".to_string()),
            Some(v) => v.clone(),
        }
    }

    /// pgbench's assignVariables: each `:name` of a defined variable replaced by its text.
    pub fn substitute(&self, sql: &str) -> String {
        let mut out = String::with_capacity(sql.len());
        for piece in split_variables(sql) {
            match piece {
                Piece::Text(t) => out.push_str(t),
                Piece::Var(name) => match self.vars.get(name) {
                    Some(v) => out.push_str(&v.to_pgbench_text()),
                    None => {
                        out.push(':');
                        out.push_str(name);
                    }
                },
            }
        }
        out
    }
}

enum SqlFail {
    Sql(super::EventError),
    Script(String),
}

/// In a branch that does not run: update the conditional stack as pgbench's
/// CSTATE_SKIP_COMMAND does. True: the command is an \elif whose condition must be
/// evaluated now.
fn skip_lands_on_elif(stack: &mut Vec<IfState>, c: &Command) -> bool {
    let Command::Meta(m) = c else { return false };
    let top = *stack.last().expect("inactive means inside an \\if");
    match (&m.kind, top) {
        (Meta::If(_), _) => stack.push(IfState::Ignored),
        (Meta::Elif(_), IfState::False) => return true,
        (Meta::Else, IfState::False) => *stack.last_mut().expect("checked") = IfState::ElseTrue,
        (Meta::Endif, _) => {
            stack.pop();
        }
        _ => {}
    }
    false
}
