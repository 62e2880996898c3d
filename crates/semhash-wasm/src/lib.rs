//! The WebAssembly face, for the npm package: the same library calls with JS
//! values in and out. It adds no logic of its own. Built by wasm-pack for
//! `wasm32-unknown-unknown` only (`pkg-config/build.mjs`); on other targets
//! the crate is empty.

#![cfg(target_arch = "wasm32")]
//!
//! A [`Deduper`] holds an in-memory index over a [`HostStore`]: the JS wrapper
//! loads stored signatures into it, and persists (in IndexedDB, or a Workers
//! binding) the commit each `add` or `remove` returns. Rust errors become JS
//! `Error`s with the library's message.

use js_sys::{Array, Object, Reflect, Uint8Array};
use semhash::admit::{Admission, OnError, Record};
use semhash::store::{Commit, HostStore, Incremental};
use semhash::util::{Progress, Silent};
use semhash::{Config, Document, Error};
use serde::Serialize;
use wasm_bindgen::prelude::*;

fn fail(e: Error) -> JsError {
    JsError::new(&e.to_string())
}

fn input(message: String) -> JsError {
    JsError::new(&message)
}

/// Plain JS objects (not `Map`s) for every serde map.
fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsError> {
    value.serialize(&serde_wasm_bindgen::Serializer::json_compatible()).map_err(|e| JsError::new(&e.to_string()))
}

fn field(object: &JsValue, name: &str) -> Result<JsValue, JsError> {
    Reflect::get(object, &JsValue::from_str(name)).map_err(|_| input(format!("cannot read field {name:?}")))
}

/// A document id: a string, or a number as JavaScript's `String(n)` writes
/// it (`7`, not `7.0`, as the CLI reads the JSON number 7).
fn id_of(value: &JsValue, at: &str) -> Result<String, JsError> {
    if let Some(s) = value.as_string() {
        return Ok(s);
    }
    match value.as_f64() {
        Some(n) if n.is_finite() => Ok(String::from(
            js_sys::Number::from(n).to_string_with_radix(10).map_err(|_| input(format!("{at}: bad number")))?,
        )),
        _ => Err(input(format!("{at}: id must be a string or a number"))),
    }
}

/// `[{id, text}]` from JS, named in errors by index.
fn documents(docs: &JsValue) -> Result<Vec<Document>, JsError> {
    if !Array::is_array(docs) {
        return Err(input("expected an array of {id, text} objects".into()));
    }
    Array::from(docs)
        .iter()
        .enumerate()
        .map(|(i, doc)| {
            let at = format!("document {i}");
            let text = field(&doc, "text")?.as_string().ok_or_else(|| input(format!("{at}: text must be a string")))?;
            Ok(Document { id: id_of(&field(&doc, "id")?, &at)?, text })
        })
        .collect()
}

fn set(object: &Object, name: &str, value: &JsValue) {
    Reflect::set(object, &JsValue::from_str(name), value).expect("setting a field on a plain object");
}

/// A commit as `{added: [{id, signature: Uint8Array}], removed: [id], stats: Uint8Array}`.
fn commit_to_js(commits: Vec<Commit>) -> JsValue {
    let (added, removed) = (Array::new(), Array::new());
    let mut stats = None;
    for c in commits {
        for (id, bytes) in c.added {
            let entry = Object::new();
            set(&entry, "id", &JsValue::from_str(&id));
            set(&entry, "signature", &Uint8Array::from(bytes.as_slice()));
            added.push(&entry);
        }
        c.removed.iter().for_each(|id| {
            removed.push(&JsValue::from_str(id));
        });
        stats = Some(c.stats);
    }
    let out = Object::new();
    set(&out, "added", &added);
    set(&out, "removed", &removed);
    set(&out, "stats", &stats.map_or(JsValue::NULL, |s| Uint8Array::from(s.as_slice()).into()));
    out.into()
}

/// Reports progress to a JS callback `(stage, done, total)`.
struct JsProgress {
    callback: js_sys::Function,
    stage: std::cell::Cell<&'static str>,
    done: std::cell::Cell<u64>,
    total: std::cell::Cell<u64>,
}

// SAFETY: the wasm32 build has no threads (no `parallel` feature, no shared
// memory), so this value is never touched from two threads.
unsafe impl Sync for JsProgress {}

impl JsProgress {
    fn emit(&self) {
        let (stage, done, total) = (self.stage.get(), self.done.get(), self.total.get());
        let _ = self.callback.call3(&JsValue::NULL, &stage.into(), &(done as f64).into(), &(total as f64).into());
    }
}

impl Progress for JsProgress {
    fn stage(&self, name: &'static str, total: u64) {
        self.stage.set(name);
        self.done.set(0);
        self.total.set(total);
        self.emit();
    }

    fn advance(&self, n: u64) {
        self.done.set(self.done.get() + n);
        // Every 256 documents and at the end: a callback per document costs more than the work.
        if self.done.get().is_multiple_of(256) || self.done.get() == self.total.get() {
            self.emit();
        }
    }
}

/// The default configuration as a plain object (edit it and pass it back).
#[wasm_bindgen(js_name = defaultConfig)]
pub fn default_config() -> Result<JsValue, JsError> {
    to_js(&Config::default())
}

/// The library version.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}

/// A de-duplicator with an incremental index. See the module docs.
#[wasm_bindgen]
pub struct Deduper {
    inner: Incremental<HostStore>,
}

#[wasm_bindgen]
impl Deduper {
    /// `new Deduper(config?, stored?, record?)`: `config` as from
    /// `defaultConfig()` (or a JSON string; missing fields take their
    /// defaults); `stored` is `{signatures: [{id, signature: Uint8Array}],
    /// stats: Uint8Array | null}`, what earlier commits persisted. Signatures
    /// or statistics made under another configuration are refused. With
    /// `record` false, `add` and `remove` return no commits to persist.
    #[wasm_bindgen(constructor)]
    pub fn new(config: JsValue, stored: JsValue, record: Option<bool>) -> Result<Deduper, JsError> {
        Self::open(config, stored, record, None)
    }

    /// As the constructor, with the semantic stage of `model` (the full
    /// build): short texts are embedded, their codes indexed, and paraphrases
    /// found. The fingerprint covers the model, so signatures stored under
    /// another model (or none) are refused.
    #[cfg(feature = "full")]
    #[wasm_bindgen(js_name = withSemantic)]
    pub fn with_semantic(
        model: &SemanticModel,
        config: JsValue,
        stored: JsValue,
        record: Option<bool>,
    ) -> Result<Deduper, JsError> {
        Self::open(config, stored, record, Some(model))
    }

    fn open(
        config: JsValue,
        stored: JsValue,
        record: Option<bool>,
        #[cfg(feature = "full")] semantic: Option<&SemanticModel>,
        #[cfg(not(feature = "full"))] semantic: Option<std::convert::Infallible>,
    ) -> Result<Deduper, JsError> {
        let config = if config.is_undefined() || config.is_null() {
            Config::default()
        } else if let Some(json) = config.as_string() {
            Config::from_json(&json).map_err(fail)?
        } else {
            let json = js_sys::JSON::stringify(&config).map_err(|_| input("config is not JSON-serialisable".into()))?;
            Config::from_json(&String::from(json)).map_err(fail)?
        };
        let (mut signatures, mut stats) = (Vec::new(), None);
        if !(stored.is_undefined() || stored.is_null()) {
            let list = field(&stored, "signatures")?;
            if !Array::is_array(&list) {
                return Err(input("stored.signatures must be an array".into()));
            }
            for (i, entry) in Array::from(&list).iter().enumerate() {
                let at = format!("stored signature {i}");
                let bytes = field(&entry, "signature")?;
                if !bytes.is_instance_of::<Uint8Array>() {
                    return Err(input(format!("{at}: signature must be a Uint8Array")));
                }
                signatures.push((id_of(&field(&entry, "id")?, &at)?, Uint8Array::from(bytes).to_vec()));
            }
            let s = field(&stored, "stats")?;
            if s.is_instance_of::<Uint8Array>() {
                stats = Some(Uint8Array::from(s).to_vec());
            }
        }
        if config.semantic.attention_weights {
            return Err(input(
                "semantic.attention_weights is not offered in the npm package (the semhash command has it)".into(),
            ));
        }
        if config.semantic.enabled && semantic.is_none() {
            return Err(input(
                "the configuration asks for the semantic stage (semantic.enabled): open with withSemantic(model), in the full build".into(),
            ));
        }
        #[allow(unused_mut)]
        let mut deduper = semhash::Deduper::new(config).map_err(fail)?;
        #[cfg(feature = "full")]
        if let Some(model) = semantic {
            deduper = deduper.with_semantic(model.stage.clone());
            if let Some(verifier) = &model.verifier {
                deduper = deduper.with_verifier(verifier.clone()).map_err(fail)?;
            }
        }
        let store =
            if record == Some(false) { HostStore::unrecorded() } else { HostStore::preloaded(signatures, stats) };
        let inner = Incremental::open(deduper, store).map_err(fail)?;
        Ok(Deduper { inner })
    }

    /// Fingerprint of the configuration: stored signatures must carry it.
    pub fn fingerprint(&self) -> String {
        self.inner.deduper().fingerprint().to_string()
    }

    /// Number of documents indexed.
    pub fn size(&self) -> usize {
        self.inner.len()
    }

    /// Whether a document with this id is indexed.
    pub fn has(&self, id: &str) -> bool {
        self.inner.contains(id)
    }

    /// The configuration in use, as a plain object.
    pub fn config(&self) -> Result<JsValue, JsError> {
        to_js(self.inner.deduper().config())
    }

    /// Signs and indexes `[{id, text}]` as one batch; returns the commit to persist.
    pub fn add(&mut self, docs: JsValue) -> Result<JsValue, JsError> {
        let docs = documents(&docs)?;
        self.inner.add(&docs).map_err(fail)?;
        Ok(commit_to_js(self.inner.store_mut().take_commits()))
    }

    /// Indexed documents that `text` duplicates, strongest first: `[{id, relation, score}]`.
    pub fn query(&self, text: &str) -> Result<JsValue, JsError> {
        to_js(&self.inner.query(text).map_err(fail)?)
    }

    /// Removes documents by id; returns the commit to persist.
    pub fn remove(&mut self, ids: Vec<String>) -> Result<JsValue, JsError> {
        self.inner.remove(&ids).map_err(fail)?;
        Ok(commit_to_js(self.inner.store_mut().take_commits()))
    }

    /// The signature bytes of `text` under the current statistics (not indexed).
    pub fn sign(&self, text: &str) -> Result<Uint8Array, JsError> {
        let sig = self.inner.sign(text).map_err(fail)?;
        Ok(Uint8Array::from(sig.to_bytes(self.inner.deduper().fingerprint()).as_slice()))
    }

    /// Signs texts as one corpus (its own statistics, nothing indexed): the
    /// same bytes the native `sign_batch` gives, which the shared test vectors check.
    #[wasm_bindgen(js_name = signBatch)]
    pub fn sign_batch(&self, texts: Vec<String>) -> Result<Array, JsError> {
        let deduper = self.inner.deduper();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let fingerprint = deduper.fingerprint();
        Ok(deduper
            .sign_batch(&refs, &Silent)
            .map_err(fail)?
            .iter()
            .map(|s| JsValue::from(Uint8Array::from(s.to_bytes(fingerprint).as_slice())))
            .collect())
    }

    /// A judge for the pairs a learned boundary (config `decide.type`
    /// "learned") is unsure of, in `dedup` and `compare`: a synchronous
    /// `(pairs: {a, b, p}[]) => {duplicate, confidence, relation?}[]`, asked
    /// about verdicts with uncertainty >= `band`, at most `budget` of the
    /// candidate pairs (defaults: [`semhash::judge::JudgeConfig`]'s; checked as
    /// the command checks them). `null` removes it.
    #[wasm_bindgen(js_name = setJudge)]
    pub fn set_judge(
        &mut self,
        callback: Option<js_sys::Function>,
        budget: Option<f64>,
        band: Option<f32>,
    ) -> Result<(), JsError> {
        let mut config = semhash::judge::JudgeConfig::default();
        config.budget.fraction = budget.unwrap_or(config.budget.fraction);
        config.band = band.unwrap_or(config.band);
        config.validate().map_err(fail)?;
        let stage = callback.map(|f| config.stage(Box::new(JsJudge(f))));
        self.inner.deduper_mut().set_judge(stage).map_err(fail)
    }

    /// Compares two texts: `{duplicate, relation, score, signals, probability?,
    /// uncertainty?, judged}` (the last three with a learned boundary).
    pub fn compare(&self, a: &str, b: &str) -> Result<JsValue, JsError> {
        let deduper = self.inner.deduper();
        for t in [a, b] {
            deduper.check(t).map_err(fail)?;
        }
        let (verdict, signals) = deduper.compare(&[(a, b)]).map_err(fail)?.remove(0);
        let mut verdicts = [verdict];
        let judged = deduper.judge_compared(&mut verdicts, &[(a, b)]).is_some_and(|r| r.calls > 0);
        let [verdict] = verdicts;
        let mut out =
            serde_json::to_value(semhash::decide::Comparison::new(&verdict, signals)).expect("a comparison serialises");
        out["judged"] = judged.into();
        to_js(&out)
    }

    /// De-duplicates one batch `[{id, text}]` on its own (the index is not
    /// touched): `{docs, snippets, stats}` as the `semhash dedup` report.
    /// `onProgress(stage, done, total)` is called as it goes.
    pub fn dedup(&self, docs: JsValue, on_progress: Option<js_sys::Function>) -> Result<JsValue, JsError> {
        let deduper = self.inner.deduper();
        let mut admission = Admission::new(deduper, "document", OnError::Fail);
        for (i, d) in documents(&docs)?.into_iter().enumerate() {
            admission.offer(Record { position: i as u64, id: Some(d.id), text: Ok(d.text) }).map_err(fail)?;
        }
        let docs = admission.docs;
        let outcome = match on_progress {
            Some(callback) => {
                deduper.dedup(&docs, &JsProgress { callback, stage: "".into(), done: 0.into(), total: 0.into() })
            }
            None => deduper.dedup(&docs, &Silent),
        }
        .map_err(fail)?;
        to_js(&outcome)
    }
}

/// The semantic stage in the browser (the full build): the student encoder
/// and the learned hyperplanes, from the bytes of `student.onnx`,
/// `tokenizer.json` and `sph-128.bin` (or the static table's three files),
/// fetched once by the host.
#[cfg(feature = "full")]
#[wasm_bindgen]
pub struct SemanticModel {
    stage: semhash::semantic::Stage,
    /// The student behind the static table, in a cascade.
    verifier: Option<semhash::pipeline::Verifier>,
}

#[cfg(feature = "full")]
#[wasm_bindgen]
impl SemanticModel {
    /// The model from its three files' bytes (as `loadModel` fetches them):
    /// the student ONNX, its tokenizer and the hyperplanes. Refused when
    /// they do not load or do not fit together.
    #[wasm_bindgen(constructor)]
    pub fn new(onnx: &[u8], tokenizer_json: &[u8], projection: &[u8]) -> Result<SemanticModel, JsError> {
        let stage =
            semhash::encoder::semantic_stage(onnx, tokenizer_json, projection, &Default::default()).map_err(fail)?;
        Ok(SemanticModel { stage, verifier: None })
    }

    /// The static table's model from its three files' bytes (as `loadModel`
    /// with `embedder: "static"` fetches them): the table, the tokenizer it
    /// was built over and the hyperplanes over its embeddings.
    #[wasm_bindgen(js_name = staticTable)]
    pub fn static_table(table: &[u8], tokenizer_json: &[u8], projection: &[u8]) -> Result<SemanticModel, JsError> {
        let stage = semhash::encoder::static_table::static_stage(table, tokenizer_json, projection).map_err(fail)?;
        Ok(SemanticModel { stage, verifier: None })
    }

    /// The cascade (as `loadModel` with `embedder: "cascade"` fetches its
    /// files): the static table embeds every text, and the student, within
    /// `budget` (a share of a run's documents; by default
    /// `Verifier::DEFAULT_BUDGET`, 0.05), the texts of the pairs the table is
    /// unsure of, which are then decided on its embeddings (in `dedup` and
    /// `compare`; a store keeps the table's signatures).
    #[allow(clippy::too_many_arguments)]
    pub fn cascade(
        table: &[u8],
        table_tokenizer: &[u8],
        table_projection: &[u8],
        onnx: &[u8],
        tokenizer_json: &[u8],
        projection: &[u8],
        budget: Option<f32>,
    ) -> Result<SemanticModel, JsError> {
        let student = SemanticModel::new(onnx, tokenizer_json, projection)?.stage;
        let mut model = SemanticModel::static_table(table, table_tokenizer, table_projection)?;
        let budget = budget.unwrap_or(semhash::pipeline::Verifier::DEFAULT_BUDGET);
        model.verifier = Some(semhash::pipeline::Verifier { stage: student, budget });
        Ok(model)
    }

    /// The code of each text as a hex string of its 64-bit words, low word first.
    pub fn codes(&self, texts: Vec<String>) -> Result<Array, JsError> {
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let sketches = self.stage.sketch(&refs, &Silent).map_err(fail)?;
        Ok(sketches.iter().map(|s| JsValue::from_str(&semhash::sketch::semantic::code_hex(&s.code))).collect())
    }
}

/// A judge that is a synchronous JS function `(pairs: {a, b, p}[]) =>
/// {duplicate, confidence, relation?}[]` (for instance a lookup in answers an
/// LLM gave earlier, or a local model of the host's own). A throw, or a reply
/// that is not one verdict per pair, leaves the model's verdicts standing.
struct JsJudge(js_sys::Function);

// SAFETY: as for `JsProgress`: the wasm32 build has no threads.
unsafe impl Send for JsJudge {}
unsafe impl Sync for JsJudge {}

impl semhash::judge::Judge for JsJudge {
    fn name(&self) -> &'static str {
        "js-callback"
    }

    fn judge(&self, pairs: &[semhash::judge::Pair<'_>]) -> Vec<semhash::Result<semhash::judge::Judgement>> {
        let failed = |why: String| pairs.iter().map(|_| Err(Error::Input(why.clone()))).collect();
        let input = Array::new();
        for p in pairs {
            let entry = Object::new();
            set(&entry, "a", &JsValue::from_str(p.a));
            set(&entry, "b", &JsValue::from_str(p.b));
            set(&entry, "p", &JsValue::from_f64(p.p as f64));
            input.push(&entry);
        }
        let reply = match self.0.call1(&JsValue::NULL, &input) {
            Ok(reply) if Array::is_array(&reply) => Array::from(&reply),
            Ok(_) => return failed("the judge callback must return an array".into()),
            Err(e) => {
                return failed(format!(
                    "the judge callback threw: {}",
                    js_sys::JSON::stringify(&e).map(String::from).unwrap_or_default()
                ))
            }
        };
        if reply.length() as usize != pairs.len() {
            return failed(format!(
                "the judge callback returned {} verdicts for {} pairs",
                reply.length(),
                pairs.len()
            ));
        }
        reply
            .iter()
            .enumerate()
            .map(|(i, v)| judgement(&v).map_err(|e| Error::Input(format!("judge callback verdict {i}: {e}"))))
            .collect()
    }
}

/// `{duplicate: boolean, confidence: number, relation?: string}`, read by hand:
/// a serde deserializer for it would cost the lite module more than this.
fn judgement(v: &JsValue) -> std::result::Result<semhash::judge::Judgement, String> {
    let get = |name: &str| Reflect::get(v, &JsValue::from_str(name)).map_err(|_| format!("no field {name:?}"));
    let duplicate = get("duplicate")?.as_bool().ok_or("duplicate must be a boolean")?;
    let confidence = get("confidence")?.as_f64().ok_or("confidence must be a number")? as f32;
    let mut out = semhash::judge::Judgement::new(duplicate, confidence);
    let relation = get("relation")?;
    if let Some(name) = relation.as_string() {
        out.relation = Some(serde_json::from_value(serde_json::Value::String(name)).map_err(|e| e.to_string())?);
    } else if !relation.is_undefined() && !relation.is_null() {
        return Err("relation must be a string".into());
    }
    Ok(out)
}
