//! An LLM judge behind an OpenAI-compatible chat endpoint (llama.cpp's
//! server, vLLM, Ollama): `POST {url}/v1/chat/completions` with the prompt of
//! [`super::prompt`] and its JSON schema as `response_format`.
//!
//! Endpoints fail in ordinary ways (slow, overloaded, restarting, a small
//! model that wanders off the schema), so each pair is tried again after a
//! timeout, a connection failure, a 5xx or 429 answer or a reply without a
//! verdict, waiting `backoff_ms` and doubling; other 4xx answers (a wrong URL,
//! a refused key) would fail the same way again and are not retried. Every
//! try builds a fresh prompt with a fresh nonce. At most `concurrency`
//! requests are in flight, each on a thread of its own (the client blocks).
//!
//! Servers differ in how they take the answer's schema (llama-cpp-python's
//! refuses OpenAI's `json_schema` form and takes its own `json_object` one):
//! a refusal that names `response_format` moves the judge to the next simpler
//! form ([`ResponseFormat::simpler`]) for every later request, and the try
//! does not count against the retries.

use super::{prompt, EndpointConfig, Judge, Judgement, Pair, ResponseFormat};
use crate::{Error, Result};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// The endpoint judge.
pub struct Endpoint {
    config: EndpointConfig,
    agent: ureq::Agent,
    /// Read from the environment once; never logged or put in an error.
    api_key: Option<String>,
    /// The form the server is known to take, shared by the workers.
    format: Mutex<ResponseFormat>,
}

/// Why a try gave no verdict, and whether another might.
enum Failure {
    Retry(String),
    Fatal(String),
    /// The server refused the answer's form; try again in a simpler one.
    Simpler,
}

impl Endpoint {
    /// A judge for `config`; reads the API key from `config.api_key_env`.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] when `concurrency` is 0, or the URL is not
    /// `http://`: this build has no TLS, and an `https://` URL is better
    /// refused once, here, than failed on every call.
    pub fn new(config: EndpointConfig) -> Result<Endpoint> {
        if config.concurrency == 0 {
            return Err(Error::Config("judge concurrency must be at least 1".into()));
        }
        // No TLS in this build (the usual endpoint is a server on this machine
        // or the local network): an https URL would only fail on every call.
        if !config.url.starts_with("http://") {
            return Err(Error::Config(format!(
                "judge URL must start with http:// (this build has no TLS; put a TLS proxy in front of a remote \
                 endpoint), got {:?}",
                config.url
            )));
        }
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_millis(config.timeout_ms.max(1))))
            // Statuses are read below: a 5xx is retried, a 4xx is not.
            .http_status_as_error(false)
            .build()
            .into();
        let api_key = std::env::var(&config.api_key_env).ok().filter(|k| !k.is_empty());
        let format = Mutex::new(config.response_format);
        Ok(Endpoint { config, agent, api_key, format })
    }

    fn url(&self) -> String {
        format!("{}/v1/chat/completions", self.config.url.trim_end_matches('/'))
    }

    /// One pair, with retries.
    fn ask(&self, pair: &Pair<'_>) -> Result<Judgement> {
        let mut wait = Duration::from_millis(self.config.backoff_ms);
        let mut last = String::new();
        let mut attempt = 0;
        while attempt <= self.config.retries {
            match self.once(pair) {
                Ok(j) => return Ok(j),
                // At most two steps down (three forms): not a try.
                Err(Failure::Simpler) => continue,
                Err(Failure::Retry(e)) => last = e,
                Err(Failure::Fatal(e)) => return Err(Error::Input(format!("judge endpoint: {e}"))),
            }
            attempt += 1;
            if attempt <= self.config.retries {
                std::thread::sleep(wait);
                wait = wait.saturating_mul(2);
            }
        }
        Err(Error::Input(format!("judge endpoint: {last} (after {} tries)", self.config.retries + 1)))
    }

    /// One try.
    fn once(&self, pair: &Pair<'_>) -> std::result::Result<Judgement, Failure> {
        let nonce = fresh_nonce().map_err(Failure::Fatal)?;
        let format = *self.format.lock().expect("format lock");
        let body = prompt::request(&self.config, format, pair.a, pair.b, &nonce).to_string();
        let mut request = self.agent.post(self.url()).header("Content-Type", "application/json");
        if let Some(key) = &self.api_key {
            request = request.header("Authorization", format!("Bearer {key}"));
        }
        let mut response = request.send(body).map_err(|e| match e {
            ureq::Error::Timeout(_) | ureq::Error::Io(_) | ureq::Error::ConnectionFailed => {
                Failure::Retry(e.to_string())
            }
            other => Failure::Fatal(other.to_string()),
        })?;
        let status = response.status().as_u16();
        let text =
            response.body_mut().read_to_string().map_err(|e| Failure::Retry(format!("reading the reply: {e}")))?;
        if !(200..=299).contains(&status) && text.contains("response_format") {
            if let Some(simpler) = format.simpler() {
                // Another worker may have stepped down already: never step up.
                let mut known = self.format.lock().expect("format lock");
                *known = (*known).max(simpler);
                return Err(Failure::Simpler);
            }
        }
        match status {
            200..=299 => prompt::parse_reply(&text).map_err(Failure::Retry),
            429 | 500..=599 => Err(Failure::Retry(format!("HTTP {status}"))),
            _ => Err(Failure::Fatal(format!("HTTP {status}: {}", text.chars().take(200).collect::<String>()))),
        }
    }
}

/// A fence nonce from the OS random source.
fn fresh_nonce() -> std::result::Result<String, String> {
    let mut bytes = [0u8; prompt::NONCE_BYTES];
    getrandom::fill(&mut bytes).map_err(|e| format!("no random source for the prompt fence: {e}"))?;
    Ok(prompt::nonce_from(&bytes))
}

impl Judge for Endpoint {
    fn name(&self) -> &'static str {
        "endpoint"
    }

    fn judge(&self, pairs: &[Pair<'_>]) -> Vec<Result<Judgement>> {
        let next = AtomicUsize::new(0);
        let workers = self.config.concurrency.min(pairs.len());
        let mut slots: Vec<Option<Result<Judgement>>> = (0..pairs.len()).map(|_| None).collect();
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..workers)
                .map(|_| {
                    scope.spawn(|| {
                        let mut done = Vec::new();
                        loop {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            if i >= pairs.len() {
                                return done;
                            }
                            done.push((i, self.ask(&pairs[i])));
                        }
                    })
                })
                .collect();
            for handle in handles {
                for (i, outcome) in handle.join().expect("judge worker panicked") {
                    slots[i] = Some(outcome);
                }
            }
        });
        slots.into_iter().map(|s| s.expect("every pair was taken by a worker")).collect()
    }
}
