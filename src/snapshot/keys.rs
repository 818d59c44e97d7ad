//! Decoding the kinds a cluster has by the ten thousand (Services, EndpointSlices) while noting,
//! in the same pass, the keys they do not read at the top level and in `metadata`: the
//! unknown-field check of a snapshot (`strict::shallow`) looks only there, and reading each
//! object a second time for it was two fifths of decoding them.

use std::borrow::Cow;
use std::marker::PhantomData;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ManagedFieldsEntry;
use serde::de::{Deserialize, Deserializer, Error as _, IgnoredAny, MapAccess, Visitor};

use super::service::Meta;

/// The keys of an object its decoder did not read: checked against the kind's known fields.
#[derive(Debug, Default)]
pub struct OtherKeys<'de> {
    pub top: Vec<Cow<'de, str>>,
    pub metadata: Vec<Cow<'de, str>>,
}

/// An object with the keys it left unread.
pub struct Checked<'de, T> {
    pub object: T,
    pub other: OtherKeys<'de>,
}

/// A kind decoded from its top-level fields: the ones it reads, each once.
pub(crate) trait TopLevel: Sized {
    /// The top-level keys it reads besides `metadata`.
    const FIELDS: &'static [&'static str];
    /// Whether `metadata` keeps the fields only a Service reads (annotations, timestamps,
    /// managedFields).
    const FULL_METADATA: bool;
    type Fields: Default;
    /// Reads the value of `FIELDS[index]`.
    fn read<'de, A: MapAccess<'de>>(fields: &mut Self::Fields, index: usize, map: &mut A) -> Result<(), A::Error>;
    fn build(metadata: Option<Metadata>, fields: Self::Fields) -> Self;
}

/// The fields of a kind that reads its `spec` and `status` (`FIELDS = ["spec", "status"]`):
/// Services and Pods.
pub(crate) struct SpecStatus<Spec, Status> {
    pub spec: Option<Spec>,
    pub status: Option<Status>,
}

impl<Spec, Status> Default for SpecStatus<Spec, Status> {
    fn default() -> Self {
        SpecStatus { spec: None, status: None }
    }
}

impl<Spec: serde::de::DeserializeOwned, Status: serde::de::DeserializeOwned> SpecStatus<Spec, Status> {
    /// [`TopLevel::read`] of such a kind.
    pub fn read<'de, A: MapAccess<'de>>(&mut self, index: usize, map: &mut A) -> Result<(), A::Error> {
        match index {
            0 => self.spec = map.next_value()?,
            _ => self.status = map.next_value()?,
        }
        Ok(())
    }
}

/// The metadata the engines read, as decoded: a Service's status writers come from its
/// managedFields.
#[derive(Default)]
pub(crate) struct Metadata {
    pub meta: Meta,
    pub managed_fields: Option<Vec<ManagedFieldsEntry>>,
}

impl<'de, T: TopLevel> Deserialize<'de> for Checked<'de, T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit<T>(PhantomData<T>);
        impl<'de, T: TopLevel> Visitor<'de> for Visit<T> {
            type Value = Checked<'de, T>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a Kubernetes object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut other = OtherKeys::default();
                let mut metadata: Option<Option<Metadata>> = None;
                let mut fields = T::Fields::default();
                let mut seen = [false; 8];
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    if key == "metadata" {
                        if metadata.is_some() {
                            return Err(A::Error::duplicate_field("metadata"));
                        }
                        let meta: Option<MetaKeys<T>> = map.next_value()?;
                        metadata = Some(meta.map(|m| {
                            other.metadata = m.other;
                            m.metadata
                        }));
                    } else if let Some(i) = T::FIELDS.iter().position(|f| *f == key) {
                        if std::mem::replace(&mut seen[i], true) {
                            return Err(A::Error::duplicate_field(T::FIELDS[i]));
                        }
                        T::read(&mut fields, i, &mut map)?;
                    } else {
                        map.next_value::<IgnoredAny>()?;
                        other.top.push(key);
                    }
                }
                Ok(Checked { object: T::build(metadata.flatten(), fields), other })
            }
        }
        deserializer.deserialize_map(Visit(PhantomData))
    }
}

/// `metadata` with the keys it left unread.
struct MetaKeys<'de, T> {
    metadata: Metadata,
    other: Vec<Cow<'de, str>>,
    kind: PhantomData<T>,
}

impl<'de, T: TopLevel> Deserialize<'de> for MetaKeys<'de, T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit<T>(PhantomData<T>);
        impl<'de, T: TopLevel> Visitor<'de> for Visit<T> {
            type Value = MetaKeys<'de, T>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("struct ObjectMeta")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                const NAMES: [&str; 7] = [
                    "name",
                    "namespace",
                    "labels",
                    "annotations",
                    "creationTimestamp",
                    "deletionTimestamp",
                    "managedFields",
                ];
                let read = if T::FULL_METADATA { &NAMES[..] } else { &NAMES[..3] };
                let mut m = Metadata::default();
                let mut other = Vec::new();
                let mut seen = [false; NAMES.len()];
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    let Some(i) = read.iter().position(|f| *f == key) else {
                        map.next_value::<IgnoredAny>()?;
                        other.push(key);
                        continue;
                    };
                    if std::mem::replace(&mut seen[i], true) {
                        return Err(A::Error::duplicate_field(NAMES[i]));
                    }
                    match i {
                        0 => m.meta.name = map.next_value()?,
                        1 => m.meta.namespace = map.next_value()?,
                        2 => m.meta.labels = map.next_value()?,
                        3 => m.meta.annotations = map.next_value()?,
                        4 => m.meta.creation_timestamp = map.next_value()?,
                        5 => m.meta.deletion_timestamp = map.next_value()?,
                        _ => m.managed_fields = map.next_value()?,
                    }
                }
                Ok(MetaKeys { metadata: m, other, kind: PhantomData })
            }
        }
        deserializer.deserialize_map(Visit(PhantomData))
    }
}
