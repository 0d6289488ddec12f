//! `airlab._core`: the engine as a Python extension module. The Python package wraps these
//! functions; everything here converts between Python values and the engine's types.

mod wire;

use airlab_core::metrics::columns::TABLES;
use airlab_core::metrics::series::Table;
use airlab_core::scenario::{self, ScenarioError as CoreError};
use numpy::IntoPyArray;
use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

create_exception!(_core, ScenarioError, PyValueError, "A scenario file or override is invalid.");
create_exception!(
    _core,
    InternalError,
    PyRuntimeError,
    "A run's results broke a physical invariant: a bug in the engine, not in the scenario."
);

fn scenario_error(e: CoreError) -> PyErr {
    ScenarioError::new_err(e.to_string())
}

/// A long-format table as numpy columns, moved out of the engine without a copy: the times,
/// the entity of each row as `(codes, names)` (an index into the entity names, for a
/// categorical column), and one float64 array per value column.
fn table<'py>(py: Python<'py>, mut t: Table, time_name: &str, entity_name: &str) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item(time_name, std::mem::take(&mut t.time_s).into_pyarray(py))?;
    d.set_item(entity_name, (std::mem::take(&mut t.entity).into_pyarray(py), std::mem::take(&mut t.names)))?;
    for (name, col) in t.into_columns() {
        d.set_item(name, col.into_pyarray(py))?;
    }
    Ok(d)
}

/// Load, check and run a scenario. Returns the summary and resolved scenario as JSON text
/// and the time series as dicts of columns.
///
/// The engine runs without the GIL and comes back every simulated second to let Python
/// handle signals (Ctrl-C raises KeyboardInterrupt promptly) and to call `progress(fraction)`
/// if given; an exception from `progress` stops the run and is raised. A summary that breaks a
/// physical invariant raises `InternalError`.
#[pyfunction]
#[pyo3(signature = (text, file, overrides, seed=None, progress=None))]
fn run<'py>(
    py: Python<'py>,
    text: &str,
    file: &str,
    overrides: Vec<(String, String)>,
    seed: Option<u64>,
    progress: Option<Py<PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let resolved = scenario::load_str(text, file, &overrides).map_err(scenario_error)?;
    let mut failure: Option<PyErr> = None;
    let out = py.detach(|| {
        airlab_core::run_with_progress(&resolved, seed, |fraction| {
            let step = Python::attach(|py| -> PyResult<()> {
                py.check_signals()?;
                if let Some(callback) = &progress {
                    callback.call1(py, (fraction,))?;
                }
                Ok(())
            });
            step.map_err(|e| failure = Some(e)).is_ok()
        })
    });
    let out = match out {
        Ok(out) => out,
        Err(airlab_core::RunError::Internal(e)) => return Err(InternalError::new_err(e.to_string())),
        Err(airlab_core::RunError::Cancelled) => {
            return Err(failure.unwrap_or_else(|| PyValueError::new_err("the run was stopped")))
        }
    };
    let d = PyDict::new(py);
    d.set_item("summary", out.summary.to_string())?;
    d.set_item("scenario", serde_json::to_string(&resolved).map_err(|e| PyValueError::new_err(e.to_string()))?)?;
    let tables = [out.flows, out.queues, out.links, out.wifi, out.fcts, out.pings, out.batches];
    for (t, &(name, time, entity, _)) in tables.into_iter().zip(TABLES) {
        d.set_item(name, table(py, t, time, entity)?)?;
    }
    Ok(d)
}

/// Check a scenario without running it; returns the resolved scenario as JSON text.
#[pyfunction]
fn validate(text: &str, file: &str, overrides: Vec<(String, String)>) -> PyResult<String> {
    let resolved = scenario::load_str(text, file, &overrides).map_err(scenario_error)?;
    serde_json::to_string(&resolved).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The time-series tables: `{table: (time column, entity column, [(name, unit, meaning)])}`.
#[pyfunction]
fn columns(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    for &(name, time, entity, cols) in TABLES {
        let cols: Vec<(&str, &str, &str)> = cols.iter().map(|c| (c.name, c.unit, c.doc)).collect();
        d.set_item(name, (time, entity, cols))?;
    }
    Ok(d)
}

/// Registered components by family key, in listing order.
#[pyfunction]
fn components(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    for family in scenario::FAMILIES {
        d.set_item(family.key, (family.names)())?;
    }
    Ok(d)
}

/// The families of registered components, in listing order: `(key, title, written, place)`,
/// where `written` shows how a scenario writes the member called `{name}`.
#[pyfunction]
fn families() -> Vec<(&'static str, &'static str, &'static str, &'static str)> {
    scenario::FAMILIES.iter().map(|f| (f.key, f.title, f.written, f.place)).collect()
}

/// The parameters of the registered component `name`: `(family, doc, [(name, accepts,
/// default, doc)])`, or None if no component has that name.
#[pyfunction]
#[allow(clippy::type_complexity)]
fn params(name: &str) -> Option<(&'static str, &'static str, Vec<(&'static str, String, String, &'static str)>)> {
    let (family, doc, params) = scenario::describe_component(name)?;
    Some((family, doc, params.into_iter().map(|p| (p.name, p.accepts, p.default, p.doc)).collect()))
}

/// A quantity written as a scenario writes it ("10Mbit", "8ms", "64KiB") in base units (bit/s,
/// ns, bytes); `kind` is "rate", "duration" or "size".
#[pyfunction]
fn quantity(kind: &str, text: &str) -> PyResult<u64> {
    let parsed = match kind {
        "rate" => scenario::parse_rate(text).map(|r| r.0),
        "duration" => scenario::parse_duration(text).map(|d| d.0),
        "size" => scenario::parse_bytes(text).map(|b| b.0),
        _ => Err(format!("unknown kind of quantity `{kind}`, expected rate, duration or size")),
    };
    parsed.map_err(PyValueError::new_err)
}

/// The Linux testbed's wire (see `wire.rs`): forwards datagrams from each wire's input
/// descriptor to its output after its serialization at `rate_bps` (0: none) plus `delay_ns`,
/// dropping with probability `loss`, until `stop_fd` is readable. `wires` are `(input_fd,
/// output_fd, delay_ns, rate_bps, loss, seed)`. Returns, per wire,
/// `{packets, bytes, dropped, write_errors, realtime, late_mean_us, late_p50_us, late_p99_us,
/// late_max_us}` (lateness: how long after its due time a packet left). With `cpu`, the wire's
/// thread runs on that CPU only.
#[pyfunction]
#[pyo3(signature = (wires, stop_fd, cpu=None))]
fn delay_line<'py>(
    py: Python<'py>,
    wires: Vec<(i32, i32, u64, u64, f64, u64)>,
    stop_fd: i32,
    cpu: Option<usize>,
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    let wires = wires
        .into_iter()
        .map(|(input, output, delay_ns, rate_bps, loss, seed)| wire::Wire {
            input,
            output,
            delay_ns,
            rate_bps,
            loss,
            seed,
        })
        .collect();
    let stats = py.detach(|| wire::run(wires, stop_fd, cpu)).map_err(|e| PyOSError::new_err(e.to_string()))?;
    let us = |ns: Option<f64>| ns.map(|v| v / 1e3);
    stats
        .into_iter()
        .map(|s| {
            let d = PyDict::new(py);
            d.set_item("packets", s.packets)?;
            d.set_item("bytes", s.bytes)?;
            d.set_item("dropped", s.dropped)?;
            d.set_item("write_errors", s.write_errors)?;
            d.set_item("realtime", s.realtime)?;
            d.set_item("late_mean_us", us(s.lateness.mean()))?;
            d.set_item("late_p50_us", us(s.lateness.quantile(0.5)))?;
            d.set_item("late_p99_us", us(s.lateness.quantile(0.99)))?;
            d.set_item("late_max_us", us(s.lateness.max().map(|v| v as f64)))?;
            Ok(d)
        })
        .collect()
}

#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// The JSON Schema of a scenario file, as JSON text (generated from the engine's types).
#[pyfunction]
fn scenario_schema() -> String {
    airlab_core::scenario::scenario_schema().to_string()
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(components, m)?)?;
    m.add_function(wrap_pyfunction!(families, m)?)?;
    m.add_function(wrap_pyfunction!(columns, m)?)?;
    m.add_function(wrap_pyfunction!(params, m)?)?;
    m.add_function(wrap_pyfunction!(delay_line, m)?)?;
    m.add_function(wrap_pyfunction!(quantity, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_schema, m)?)?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("InternalError", m.py().get_type::<InternalError>())?;
    Ok(())
}
