//! Closed sets of names in results (`write_strategy`, `action`, `level`, …):
//! each an enum that serializes as its name, with a schema listing every
//! name, so the published contract and the d.ts name the values one can
//! meet instead of saying "string".

/// Declares a string enum: `Serialize` as the given name, a `JsonSchema`
/// of `{ "type": "string", "enum": [...] }`, and `as_str`.
macro_rules! names {
    ($(#[$doc:meta])* $vis:vis enum $name:ident { $($(#[$vdoc:meta])* $variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        $vis enum $name { $($(#[$vdoc])* $variant),+ }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The name as results carry it.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }

            /// The value named `s`.
            pub fn parse(s: &str) -> Option<Self> {
                match s { $($text => Some($name::$variant),)+ _ => None }
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl schemars::JsonSchema for $name {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }
            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                let names: Vec<&str> = Self::ALL.iter().map(|v| v.as_str()).collect();
                schemars::json_schema!({ "type": "string", "enum": names })
            }
        }
    };
}

pub(crate) use names;
