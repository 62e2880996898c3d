//! A chat-completions server for tests (std only): serves on 127.0.0.1 on
//! threads of its own, records what it receives and answers as told. Used by
//! the judge tests of the library and of the `semhash` command.
#![allow(dead_code)]

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A request as the server saw it.
#[derive(Clone, Debug)]
pub struct Seen {
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Value,
}

/// What the server does with request number `n` (from 0).
pub struct Reply {
    pub status: u16,
    pub body: String,
    pub delay: Duration,
}

pub type Handler = dyn Fn(usize, &Seen) -> Reply + Send + Sync;

pub struct Server {
    pub url: String,
    pub seen: Arc<Mutex<Vec<Seen>>>,
    pub most_in_flight: Arc<AtomicUsize>,
}

/// Serves on 127.0.0.1 until the test process ends: one thread per
/// connection, `Connection: close` on every reply.
pub fn serve(handler: impl Fn(usize, &Seen) -> Reply + Send + Sync + 'static) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let (in_flight, most) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let handler: Arc<Handler> = Arc::new(handler);
    let (seen2, most2) = (seen.clone(), most.clone());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let (seen, handler, in_flight, most) = (seen2.clone(), handler.clone(), in_flight.clone(), most2.clone());
            std::thread::spawn(move || {
                let Some(request) = read_request(&mut stream) else { return };
                let now = in_flight.fetch_add(1, Ordering::SeqCst) + 1;
                most.fetch_max(now, Ordering::SeqCst);
                let n = {
                    let mut seen = seen.lock().unwrap();
                    seen.push(request.clone());
                    seen.len() - 1
                };
                let reply = handler(n, &request);
                std::thread::sleep(reply.delay);
                in_flight.fetch_sub(1, Ordering::SeqCst);
                let head = format!(
                    "HTTP/1.1 {} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    reply.status,
                    reply.body.len()
                );
                let _ = stream.write_all(head.as_bytes()).and_then(|_| stream.write_all(reply.body.as_bytes()));
            });
        }
    });
    Server { url, seen, most_in_flight: most }
}

pub fn read_request(stream: &mut std::net::TcpStream) -> Option<Seen> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let path = line.split_whitespace().nth(1)?.to_owned();
    let mut headers = Vec::new();
    loop {
        line.clear();
        reader.read_line(&mut line).ok()?;
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        let (k, v) = l.split_once(':')?;
        headers.push((k.trim().to_ascii_lowercase(), v.trim().to_owned()));
    }
    let length: usize = headers.iter().find(|(k, _)| k == "content-length")?.1.parse().ok()?;
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(Seen { path, headers, body: serde_json::from_slice(&body).ok()? })
}

pub fn ok(content: &str) -> Reply {
    let body = json!({
        "id": "chatcmpl-test", "object": "chat.completion", "model": "fake",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
    });
    Reply { status: 200, body: body.to_string(), delay: Duration::ZERO }
}

pub fn status(code: u16) -> Reply {
    Reply { status: code, body: r#"{"error": "nope"}"#.into(), delay: Duration::ZERO }
}

pub fn verdict(duplicate: bool) -> String {
    json!({"duplicate": duplicate, "confidence": 0.9, "relation": if duplicate { "near" } else { "none" }}).to_string()
}
