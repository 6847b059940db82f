//! One module read with `oxc_parser`: what it imports, the route objects and `<Route>` elements
//! it declares, the routers it creates, and the controls and links its JSX renders. Everything
//! is copied out of the parser's arena into owned values, so modules are read once each.

use std::collections::HashMap;
use std::path::Path;

use oxc_allocator::Allocator;
use oxc_ast::ast::*;
use oxc_ast_visit::{Visit, walk};
use oxc_parser::Parser;
use oxc_span::SourceType;
use windup_model::sitemap::{Control, Source};

/// A route as declared, before it is composed with its parents.
#[derive(Debug, Clone)]
pub(super) enum RouteNode {
    Route {
        path: Option<String>,
        index: bool,
        /// The component it renders (`element={<X/>}` or `Component: X`).
        component: Option<String>,
        /// `lazy: () => import("./x")`: the module that renders it.
        lazy: Option<String>,
        children: Vec<RouteNode>,
    },
    /// An identifier (or `...spread`) naming an array of routes, here or imported.
    Ref(String),
}

/// What one module holds.
#[derive(Debug, Default)]
pub(super) struct Module {
    /// Local name → (module specifier, imported name or `default`).
    pub imports: HashMap<String, (String, String)>,
    /// Top-level arrays of route objects (or `createRoutesFromElements`) by name.
    pub arrays: HashMap<String, Vec<RouteNode>>,
    /// `const X = lazy(() => import("./x"))`: X's module.
    pub lazy_components: HashMap<String, String>,
    /// `export default NAME`.
    pub default_export: Option<String>,
    /// `export { a as b } from "./x"`: b → (specifier, a); `export * from "./x"`: ("*", spec).
    pub reexports: Vec<(String, String, String)>,
    /// Route lists handed to a router (`createBrowserRouter`, `useRoutes`, `<Routes>`).
    pub roots: Vec<Vec<RouteNode>>,
    /// Controls its JSX renders.
    pub controls: Vec<Control>,
    /// Literal paths it links to, with the link's text.
    pub links: Vec<(String, String)>,
}

/// Reads a module; a file that does not parse yields what the parser recovered.
pub(super) fn module(path: &Path, text: &str) -> (Module, Option<String>) {
    let allocator = Allocator::default();
    let source_type = SourceType::from_path(path)
        .unwrap_or_default()
        .with_jsx(true);
    let parsed = Parser::new(&allocator, text, source_type).parse();
    let problem = (parsed.panicked || parsed.diagnostics.has_errors()).then(|| {
        format!(
            "{}: {}",
            path.display(),
            parsed
                .diagnostics
                .errors()
                .next()
                .map(|e| e.to_string())
                .unwrap_or_else(|| "could not be parsed".into())
        )
    });
    let mut c = Collector {
        m: Module::default(),
        labels: Vec::new(),
    };
    c.visit_program(&parsed.program);
    (c.m, problem)
}

struct Collector {
    m: Module,
    /// Texts of the `<label>` elements the visitor is inside.
    labels: Vec<String>,
}

const ROUTERS: [&str; 5] = [
    "createBrowserRouter",
    "createHashRouter",
    "createMemoryRouter",
    "createStaticRouter",
    "useRoutes",
];
const FROM_ELEMENTS: [&str; 2] = ["createRoutesFromElements", "createRoutesFromChildren"];

impl<'a> Visit<'a> for Collector {
    fn visit_import_declaration(&mut self, it: &ImportDeclaration<'a>) {
        let from = it.source.value.as_str().to_string();
        for s in it.specifiers.iter().flatten() {
            let (local, imported) = match s {
                ImportDeclarationSpecifier::ImportSpecifier(s) => {
                    (s.local.name.as_str(), module_name(&s.imported))
                }
                ImportDeclarationSpecifier::ImportDefaultSpecifier(s) => {
                    (s.local.name.as_str(), "default".to_string())
                }
                ImportDeclarationSpecifier::ImportNamespaceSpecifier(s) => {
                    (s.local.name.as_str(), "*".to_string())
                }
            };
            self.m
                .imports
                .insert(local.to_string(), (from.clone(), imported));
        }
    }

    fn visit_export_from_declaration(&mut self, it: &ExportFromDeclaration<'a>) {
        for s in &it.specifiers {
            self.m.reexports.push((
                module_name(&s.exported),
                it.source.value.as_str().to_string(),
                module_name(&s.local),
            ));
        }
    }

    fn visit_export_all_declaration(&mut self, it: &ExportAllDeclaration<'a>) {
        self.m
            .reexports
            .push(("*".into(), it.source.value.as_str().to_string(), "*".into()));
    }

    fn visit_export_default_declaration(&mut self, it: &ExportDefaultDeclaration<'a>) {
        if let Some(e) = it.declaration.as_expression()
            && let Expression::Identifier(id) = unwrap_ts(e)
        {
            self.m.default_export = Some(id.name.as_str().to_string());
        }
        walk::walk_export_default_declaration(self, it);
    }

    fn visit_variable_declarator(&mut self, it: &VariableDeclarator<'a>) {
        if let (BindingPattern::BindingIdentifier(id), Some(init)) = (&it.id, &it.init) {
            let name = id.name.as_str().to_string();
            match unwrap_ts(init) {
                Expression::ArrayExpression(a) if looks_like_routes(a) => {
                    self.m.arrays.insert(name, array_routes(a));
                }
                Expression::CallExpression(c) => {
                    let callee = callee_name(c);
                    if FROM_ELEMENTS.contains(&callee.as_str()) {
                        self.m.arrays.insert(name, call_jsx_routes(c));
                    } else if callee == "lazy"
                        && let Some(spec) = first_import(c)
                    {
                        self.m.lazy_components.insert(name, spec);
                    }
                }
                _ => {}
            }
        }
        walk::walk_variable_declarator(self, it);
    }

    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        let callee = callee_name(it);
        if ROUTERS.contains(&callee.as_str()) {
            match it
                .arguments
                .first()
                .and_then(|a| a.as_expression())
                .map(unwrap_ts)
            {
                Some(Expression::ArrayExpression(a)) => self.m.roots.push(array_routes(a)),
                Some(Expression::Identifier(id)) => self
                    .m
                    .roots
                    .push(vec![RouteNode::Ref(id.name.as_str().to_string())]),
                _ => {}
            }
        } else if FROM_ELEMENTS.contains(&callee.as_str()) {
            self.m.roots.push(call_jsx_routes(it));
        }
        walk::walk_call_expression(self, it);
    }

    fn visit_jsx_element(&mut self, it: &JSXElement<'a>) {
        let tag = element_name(&it.opening_element.name);
        if tag == "Routes" {
            self.m.roots.push(jsx_children_routes(&it.children));
        }
        let attrs = attributes(&it.opening_element);
        let text = static_text(&it.children);
        if tag == "label" {
            self.labels.push(text.clone());
            walk::walk_jsx_element(self, it);
            self.labels.pop();
            return;
        }
        if let Some(control) = control(&tag, &attrs, &text, self.labels.last()) {
            if control.role == "link"
                && let Some(href) = attrs.get("href").or(attrs.get("to")).cloned().flatten()
                && href.starts_with('/')
            {
                self.m.links.push((href, control.name.clone()));
            }
            self.m.controls.push(control);
        }
        walk::walk_jsx_element(self, it);
    }
}

fn module_name(n: &ModuleExportName<'_>) -> String {
    match n {
        ModuleExportName::IdentifierName(i) => i.name.as_str().to_string(),
        ModuleExportName::IdentifierReference(i) => i.name.as_str().to_string(),
        ModuleExportName::StringLiteral(s) => s.value.as_str().to_string(),
    }
}

/// `x as T`, `x satisfies T`, `x!` and `(x)` are `x`.
fn unwrap_ts<'b, 'a>(e: &'b Expression<'a>) -> &'b Expression<'a> {
    match e {
        Expression::TSAsExpression(x) => unwrap_ts(&x.expression),
        Expression::TSSatisfiesExpression(x) => unwrap_ts(&x.expression),
        Expression::TSNonNullExpression(x) => unwrap_ts(&x.expression),
        Expression::ParenthesizedExpression(x) => unwrap_ts(&x.expression),
        _ => e,
    }
}

fn callee_name(c: &CallExpression<'_>) -> String {
    match unwrap_ts(&c.callee) {
        Expression::Identifier(id) => id.name.as_str().to_string(),
        Expression::StaticMemberExpression(m) => m.property.name.as_str().to_string(),
        _ => String::new(),
    }
}

/// The first `import("…")` inside a node, as its specifier.
fn first_import(c: &CallExpression<'_>) -> Option<String> {
    let mut find = FindImport(None);
    find.visit_call_expression(c);
    find.0
}

struct FindImport(Option<String>);

impl<'a> Visit<'a> for FindImport {
    fn visit_import_expression(&mut self, it: &ImportExpression<'a>) {
        if self.0.is_none()
            && let Expression::StringLiteral(s) = &it.source
        {
            self.0 = Some(s.value.as_str().to_string());
        }
    }
}

const ROUTE_KEYS: [&str; 6] = ["path", "index", "children", "element", "Component", "lazy"];

fn looks_like_routes(a: &ArrayExpression<'_>) -> bool {
    a.elements.iter().any(|e| match e {
        ArrayExpressionElement::ObjectExpression(o) => o.properties.iter().any(|p| {
            matches!(p, ObjectPropertyKind::ObjectProperty(p)
                if p.key.static_name().is_some_and(|k| ROUTE_KEYS.contains(&k.as_ref())))
        }),
        _ => false,
    })
}

fn array_routes(a: &ArrayExpression<'_>) -> Vec<RouteNode> {
    a.elements
        .iter()
        .filter_map(|e| match e {
            ArrayExpressionElement::ObjectExpression(o) => Some(object_route(o)),
            ArrayExpressionElement::SpreadElement(s) => match unwrap_ts(&s.argument) {
                Expression::Identifier(id) => Some(RouteNode::Ref(id.name.as_str().to_string())),
                _ => None,
            },
            ArrayExpressionElement::Identifier(id) => {
                Some(RouteNode::Ref(id.name.as_str().to_string()))
            }
            _ => None,
        })
        .collect()
}

fn object_route(o: &ObjectExpression<'_>) -> RouteNode {
    let (mut path, mut index, mut component, mut lazy, mut children) =
        (None, false, None, None, Vec::new());
    for p in &o.properties {
        let ObjectPropertyKind::ObjectProperty(p) = p else {
            continue;
        };
        let Some(key) = p.key.static_name() else {
            continue;
        };
        let value = unwrap_ts(&p.value);
        match key.as_ref() {
            "path" => path = string_value(value),
            "index" => index = matches!(value, Expression::BooleanLiteral(b) if b.value),
            "element" => {
                if let Expression::JSXElement(e) = value {
                    component = Some(page_component(e));
                }
            }
            "Component" | "component" => {
                if let Expression::Identifier(id) = value {
                    component = Some(id.name.as_str().to_string());
                }
            }
            "lazy" => {
                let mut find = FindImport(None);
                find.visit_expression(value);
                lazy = find.0;
            }
            "children" => match value {
                Expression::ArrayExpression(a) => children = array_routes(a),
                Expression::Identifier(id) => {
                    children = vec![RouteNode::Ref(id.name.as_str().to_string())]
                }
                _ => {}
            },
            _ => {}
        }
    }
    RouteNode::Route {
        path,
        index,
        component,
        lazy,
        children,
    }
}

fn string_value(e: &Expression<'_>) -> Option<String> {
    match e {
        Expression::StringLiteral(s) => Some(s.value.as_str().to_string()),
        Expression::TemplateLiteral(t) if t.expressions.is_empty() => {
            t.quasis.first().map(|q| q.value.raw.as_str().to_string())
        }
        _ => None,
    }
}

/// The component an `element` renders: the outermost one, or the one inside a `<Suspense>`.
fn page_component(e: &JSXElement<'_>) -> String {
    let name = element_name(&e.opening_element.name);
    if name == "Suspense" || name == "React.Suspense" {
        for c in &e.children {
            if let JSXChild::Element(inner) = c {
                return page_component(inner);
            }
        }
    }
    name
}

fn call_jsx_routes(c: &CallExpression<'_>) -> Vec<RouteNode> {
    match c
        .arguments
        .first()
        .and_then(|a| a.as_expression())
        .map(unwrap_ts)
    {
        Some(Expression::JSXElement(e)) => jsx_route(e).into_iter().collect(),
        Some(Expression::JSXFragment(f)) => jsx_children_routes(&f.children),
        _ => Vec::new(),
    }
}

fn jsx_children_routes(children: &[JSXChild<'_>]) -> Vec<RouteNode> {
    let mut out = Vec::new();
    for c in children {
        match c {
            JSXChild::Element(e) => out.extend(jsx_route(e)),
            JSXChild::Fragment(f) => out.extend(jsx_children_routes(&f.children)),
            _ => {}
        }
    }
    out
}

fn jsx_route(e: &JSXElement<'_>) -> Option<RouteNode> {
    if element_name(&e.opening_element.name) != "Route" {
        return None;
    }
    let (mut path, mut index, mut component, mut lazy) = (None, false, None, None);
    for item in &e.opening_element.attributes {
        let JSXAttributeItem::Attribute(a) = item else {
            continue;
        };
        let JSXAttributeName::Identifier(n) = &a.name else {
            continue;
        };
        match (n.name.as_str(), &a.value) {
            ("path", Some(v)) => path = attr_string(v),
            ("index", None) => index = true,
            ("index", Some(JSXAttributeValue::ExpressionContainer(c))) => {
                index = matches!(&c.expression, JSXExpression::BooleanLiteral(b) if b.value)
            }
            ("element", Some(JSXAttributeValue::ExpressionContainer(c))) => {
                if let JSXExpression::JSXElement(inner) = &c.expression {
                    component = Some(page_component(inner));
                }
            }
            ("Component" | "component", Some(JSXAttributeValue::ExpressionContainer(c))) => {
                if let JSXExpression::Identifier(id) = &c.expression {
                    component = Some(id.name.as_str().to_string());
                }
            }
            ("lazy", Some(JSXAttributeValue::ExpressionContainer(c))) => {
                if let Some(expr) = c.expression.as_expression() {
                    let mut find = FindImport(None);
                    find.visit_expression(expr);
                    lazy = find.0;
                }
            }
            _ => {}
        }
    }
    Some(RouteNode::Route {
        path,
        index,
        component,
        lazy,
        children: jsx_children_routes(&e.children),
    })
}

fn element_name(n: &JSXElementName<'_>) -> String {
    match n {
        JSXElementName::Identifier(i) => i.name.as_str().to_string(),
        JSXElementName::IdentifierReference(i) => i.name.as_str().to_string(),
        JSXElementName::MemberExpression(m) => {
            let mut obj = String::new();
            if let JSXMemberExpressionObject::IdentifierReference(i) = &m.object {
                obj = format!("{}.", i.name.as_str());
            }
            format!("{obj}{}", m.property.name.as_str())
        }
        JSXElementName::NamespacedName(n) => n.name.name.as_str().to_string(),
        JSXElementName::ThisExpression(_) => String::new(),
    }
}

fn attr_string(v: &JSXAttributeValue<'_>) -> Option<String> {
    match v {
        JSXAttributeValue::StringLiteral(s) => Some(s.value.as_str().to_string()),
        JSXAttributeValue::ExpressionContainer(c) => {
            c.expression.as_expression().and_then(string_value)
        }
        _ => None,
    }
}

/// Attribute name → its literal value (`None` for a boolean or computed one).
fn attributes(o: &JSXOpeningElement<'_>) -> HashMap<String, Option<String>> {
    o.attributes
        .iter()
        .filter_map(|item| match item {
            JSXAttributeItem::Attribute(a) => {
                let name = match &a.name {
                    JSXAttributeName::Identifier(i) => i.name.as_str().to_string(),
                    JSXAttributeName::NamespacedName(n) => n.name.name.as_str().to_string(),
                };
                Some((name, a.value.as_ref().and_then(attr_string)))
            }
            _ => None,
        })
        .collect()
}

/// The static text of JSX children, whitespace collapsed.
fn static_text(children: &[JSXChild<'_>]) -> String {
    let mut out = String::new();
    fn go(children: &[JSXChild<'_>], out: &mut String) {
        for c in children {
            match c {
                JSXChild::Text(t) => {
                    out.push(' ');
                    out.push_str(t.value.as_str());
                }
                JSXChild::Element(e) => go(&e.children, out),
                JSXChild::Fragment(f) => go(&f.children, out),
                JSXChild::ExpressionContainer(c) => {
                    if let JSXExpression::StringLiteral(s) = &c.expression {
                        out.push(' ');
                        out.push_str(s.value.as_str());
                    }
                }
                JSXChild::Spread(_) => {}
            }
        }
    }
    go(children, &mut out);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The control an element is, if it is one: by tag, design-system name or explicit role.
fn control(
    tag: &str,
    attrs: &HashMap<String, Option<String>>,
    text: &str,
    label: Option<&String>,
) -> Option<Control> {
    let get = |k: &str| attrs.get(k).cloned().flatten();
    let short = tag.rsplit('.').next().unwrap_or(tag);
    let role = if let Some(r) = get("role") {
        r
    } else {
        match tag {
            "button" => "button".into(),
            "a" if attrs.contains_key("href") => "link".into(),
            "input" => match get("type").as_deref() {
                Some("hidden") => return None,
                Some("submit" | "button" | "reset") => "button".into(),
                Some("checkbox") => "checkbox".into(),
                Some("radio") => "radio".into(),
                Some("search") => "searchbox".into(),
                Some("range") => "slider".into(),
                _ => "textbox".into(),
            },
            "textarea" => "textbox".into(),
            "select" => "combobox".into(),
            "form" => "form".into(),
            _ if short.ends_with("Button") => "button".into(),
            _ if short == "Link" || short == "NavLink" => "link".into(),
            _ if matches!(short, "Input" | "TextField" | "Textarea" | "TextArea") => {
                "textbox".into()
            }
            _ if short == "Select" => "combobox".into(),
            _ if short == "Checkbox" => "checkbox".into(),
            _ if short == "Switch" => "switch".into(),
            _ if attrs.contains_key("data-testid") => "generic".into(),
            _ => return None,
        }
    };
    let field = matches!(
        role.as_str(),
        "textbox" | "searchbox" | "combobox" | "checkbox"
    );
    let name = get("aria-label")
        .or_else(|| field.then(|| get("label")).flatten())
        .or_else(|| field.then(|| label.cloned()).flatten())
        .or_else(|| (!field && role != "form").then(|| text.to_string()))
        .unwrap_or_default();
    Some(Control {
        role,
        name: name.chars().take(80).collect(),
        placeholder: get("placeholder"),
        testid: get("data-testid"),
        source: Source::Static,
    })
}
