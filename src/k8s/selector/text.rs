//! The string form of a label selector (`kubectl -l`), as `k8s.io/apimachinery/pkg/labels.Parse`
//! reads it: `a=b`, `a==b`, `a!=b`, `a in (x,y)`, `a notin (x)`, `a`, `!a`, `a>3`, comma = AND.
//! Error texts are apimachinery's, quirks included (`notin'` lacks its opening quote).

use super::{validate_key, validate_value, Op, Requirement, Selector};

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Identifier(String),
    In,
    NotIn,
    Equals,
    DoubleEquals,
    NotEquals,
    Not,
    Gt,
    Lt,
    OpenParen,
    CloseParen,
    Comma,
    Error(String),
    End,
}

impl Token {
    fn literal(&self) -> &str {
        match self {
            Token::Identifier(s) | Token::Error(s) => s,
            Token::In => "in",
            Token::NotIn => "notin",
            Token::Equals => "=",
            Token::DoubleEquals => "==",
            Token::NotEquals => "!=",
            Token::Not => "!",
            Token::Gt => ">",
            Token::Lt => "<",
            Token::OpenParen => "(",
            Token::CloseParen => ")",
            Token::Comma => ",",
            Token::End => "",
        }
    }
}

fn special(c: char) -> bool {
    matches!(c, '!' | '=' | '>' | '<' | '(' | ')' | ',')
}

fn symbol(s: &str) -> Option<Token> {
    Some(match s {
        "!" => Token::Not,
        "!=" => Token::NotEquals,
        "=" => Token::Equals,
        "==" => Token::DoubleEquals,
        ">" => Token::Gt,
        "<" => Token::Lt,
        "(" => Token::OpenParen,
        ")" => Token::CloseParen,
        "," => Token::Comma,
        _ => return None,
    })
}

fn lex(input: &str) -> Vec<Token> {
    let chars: Vec<char> = input.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if special(c) {
            // Longest run of special characters that still spells a known symbol.
            let mut best: Option<(Token, usize)> = None;
            let mut j = i;
            while j < chars.len() && special(chars[j]) {
                let candidate: String = chars[i..=j].iter().collect();
                match symbol(&candidate) {
                    Some(t) => best = Some((t, j + 1)),
                    None if best.is_some() => break,
                    None => {}
                }
                j += 1;
            }
            match best {
                Some((t, end)) => {
                    out.push(t);
                    i = end;
                }
                None => {
                    out.push(Token::Error(chars[i..j].iter().collect()));
                    i = j;
                }
            }
        } else {
            let start = i;
            while i < chars.len() && !chars[i].is_whitespace() && !special(chars[i]) {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            out.push(match word.as_str() {
                "in" => Token::In,
                "notin" => Token::NotIn,
                _ => Token::Identifier(word),
            });
        }
    }
    out.push(Token::End);
    out
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> &Token {
        &self.tokens[self.at.min(self.tokens.len() - 1)]
    }
    fn next(&mut self) -> Token {
        let t = self.peek().clone();
        self.at += 1;
        t
    }
}

impl Selector {
    /// Parses the string form; an empty string selects everything.
    pub fn parse(input: &str) -> Result<Selector, String> {
        let mut p = Parser { tokens: lex(input), at: 0 };
        let mut requirements = Vec::new();
        loop {
            match p.peek() {
                Token::Identifier(_) | Token::Not => {
                    requirements.push(requirement(&mut p)?);
                    match p.next() {
                        Token::End => break,
                        Token::Comma => match p.peek() {
                            Token::Identifier(_) | Token::Not => {}
                            t => return Err(format!("found '{}', expected: identifier after ','", t.literal())),
                        },
                        t => return Err(format!("found '{}', expected: ',' or 'end of string'", t.literal())),
                    }
                }
                Token::End => break,
                t => return Err(format!("found '{}', expected: !, identifier, or 'end of string'", t.literal())),
            }
        }
        requirements.sort_by(|a: &Requirement, b: &Requirement| a.key.cmp(&b.key));
        Ok(Selector { requirements })
    }
}

fn requirement(p: &mut Parser) -> Result<Requirement, String> {
    let negated = p.peek() == &Token::Not;
    if negated {
        p.next();
    }
    let key = match p.next() {
        Token::Identifier(k) => k,
        t => return Err(format!("found '{}', expected: identifier", t.literal())),
    };
    validate_key(&key)?;
    if matches!(p.peek(), Token::End | Token::Comma) {
        let op = if negated { Op::DoesNotExist } else { Op::Exists };
        return Ok(Requirement { key, op, values: Vec::new() });
    }
    let op = match p.next() {
        Token::In => Op::In,
        Token::NotIn => Op::NotIn,
        Token::Equals | Token::DoubleEquals => Op::In,
        Token::NotEquals => Op::NotIn,
        Token::Gt => Op::Gt,
        Token::Lt => Op::Lt,
        t => return Err(format!("found '{}', expected: '=', '!=', '==', 'in', notin'", t.literal())),
    };
    let set_form = matches!(op, Op::In | Op::NotIn) && matches!(p.tokens[p.at - 1], Token::In | Token::NotIn);
    let mut values = if set_form { value_set(p)? } else { vec![exact_value(p)?] };
    if set_form && values.is_empty() {
        return Err("for 'in', 'notin' operators, values set can't be empty".into());
    }
    if matches!(op, Op::Gt | Op::Lt) && values[0].parse::<i64>().is_err() {
        return Err(format!("for 'Gt', 'Lt' operators, the value must be an integer: {:?}", values[0]));
    }
    for v in &values {
        validate_value(v)?;
    }
    values.sort();
    values.dedup();
    Ok(Requirement { key, op, values })
}

fn exact_value(p: &mut Parser) -> Result<String, String> {
    match p.peek() {
        Token::End | Token::Comma => Ok(String::new()),
        _ => match p.next() {
            Token::Identifier(v) => Ok(v),
            t => Err(format!("found '{}', expected: identifier", t.literal())),
        },
    }
}

fn value_set(p: &mut Parser) -> Result<Vec<String>, String> {
    match p.next() {
        Token::OpenParen => {}
        t => return Err(format!("found '{}' expected: '('", t.literal())),
    }
    let mut values = Vec::new();
    if p.peek() == &Token::CloseParen {
        p.next();
        return Ok(values);
    }
    loop {
        match p.next() {
            Token::Identifier(v) => values.push(v),
            // `(a,)` and `(,a)` carry an empty value.
            Token::Comma => {
                values.push(String::new());
                if p.peek() == &Token::CloseParen {
                    values.push(String::new());
                    p.next();
                    return Ok(values);
                }
                continue;
            }
            t => return Err(format!("found '{}', expected: ',', or identifier", t.literal())),
        }
        match p.next() {
            Token::Comma => {
                if p.peek() == &Token::CloseParen {
                    values.push(String::new());
                    p.next();
                    return Ok(values);
                }
            }
            Token::CloseParen => return Ok(values),
            t => return Err(format!("found '{}', expected: ')'", t.literal())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::k8s::selector::Labels;

    fn labels(pairs: &[(&str, &str)]) -> Labels {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn operators_of_the_string_form() {
        let node = labels(&[("group", "first"), ("all", "true"), ("test/label", "is-good"), ("size", "5")]);
        for (text, want) in [
            ("", true),
            ("all=true", true),
            ("all==true", true),
            ("all!=true", false),
            ("missing!=x", true),
            ("group in (first, second)", true),
            ("group notin (first)", false),
            ("group notin (other),test/label=is-good", true),
            ("all", true),
            ("!all", false),
            ("!missing", true),
            ("size>4", true),
            ("size<5", false),
            ("foo=bar", false),
        ] {
            let s = Selector::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(s.matches(&node), want, "{text}");
        }
    }

    #[test]
    fn parse_errors_carry_apimachinery_text() {
        assert_eq!(
            Selector::parse("this is completely/bad=!;lf").unwrap_err(),
            "found 'is', expected: '=', '!=', '==', 'in', notin'"
        );
        assert_eq!(Selector::parse("a=b,").unwrap_err(), "found '', expected: identifier after ','");
        assert_eq!(Selector::parse("a in b").unwrap_err(), "found 'b' expected: '('");
        assert_eq!(Selector::parse("=a").unwrap_err(), "found '=', expected: !, identifier, or 'end of string'");
        assert!(Selector::parse("a in ()").is_err());
        assert!(Selector::parse("a>b").is_err());
    }

    #[test]
    fn empty_exact_value_matches_empty_label() {
        let s = Selector::parse("a=").unwrap();
        assert!(s.matches(&labels(&[("a", "")])));
        assert!(!s.matches(&labels(&[("a", "x")])));
    }
}
