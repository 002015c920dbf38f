"""The stub's documentation at run time: ``help(rx.calibrate)`` shows the text of
``rvalue_explorer.pyi`` (parameters, defaults, returns, errors), which is written once, there.

Part of the compiled module (its text and the stub's are built in and run at import). A compiled
function's ``__doc__`` cannot be set, so each one the stub documents is wrapped by a plain
function that calls it: the stub's docstring, the compiled signature with the defaults the stub
spells where the compiled one computes them in Rust (shown as ``...``), and the same name, so it
pickles by reference as the function did.
"""

import ast
import functools
import inspect


def document(module, stub):
    """Puts the stub's module docstring and function docstrings on ``module``."""
    tree = ast.parse(stub)
    module.__doc__ = ast.get_docstring(tree)
    for node in tree.body:
        f = getattr(module, node.name, None) if isinstance(node, ast.FunctionDef) else None
        doc = ast.get_docstring(node) if f is not None else None
        if doc is not None and inspect.isbuiltin(f):
            setattr(module, node.name, _wrapped(f, doc, _stub_defaults(node)))
        elif doc is not None and inspect.isfunction(f) and f.__doc__ is None:
            f.__doc__ = doc


def _stub_defaults(fn):
    """The literal defaults the stub spells, by parameter name."""
    a = fn.args
    positional = a.posonlyargs + a.args
    pairs = list(zip(positional[len(positional) - len(a.defaults):], a.defaults))
    pairs += [(p, d) for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None]
    out = {}
    for p, d in pairs:
        try:
            out[p.arg] = ast.literal_eval(d)
        except ValueError:
            pass
    return out


def _wrapped(f, doc, defaults):
    @functools.wraps(f)
    def call(*args, **kwargs):
        return f(*args, **kwargs)

    sig = inspect.signature(f)
    params = [
        p.replace(default=defaults[p.name]) if p.default is ... and p.name in defaults else p
        for p in sig.parameters.values()
    ]
    call.__signature__ = sig.replace(parameters=params)
    call.__doc__ = doc
    del call.__wrapped__
    return call
